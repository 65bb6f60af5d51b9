# Kesoku's worker, API and Discord adapter image (one image; docker-compose.yml picks the command).
# Runs as the unprivileged `node` user (uid 1000) of the base image. The worker runs each shell command in a
# bubblewrap sandbox (docs/sandbox.md; bwrap, plus prlimit and setpriv from util-linux for its limits); the
# container needs the security options docker-compose.yml gives the worker service (worker-seccomp.json) for bwrap
# to work. Commands see /usr and /etc of this image, not /app.
FROM node:24-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap util-linux \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production KESOKU_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
CMD ["npm", "run", "worker"]
