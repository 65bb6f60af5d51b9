# Kesoku's worker, API and Discord adapter image (one image; docker-compose.yml picks the command).
# Runs as the unprivileged `node` user (uid 1000) of the base image: the shell tool runs commands as that user.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production KESOKU_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
CMD ["npm", "run", "worker"]
