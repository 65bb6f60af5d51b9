# Kesoku's worker, API and Discord adapter image (one image; docker-compose.yml picks the command).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production KESOKU_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN mkdir -p /data
VOLUME ["/data"]
CMD ["npm", "run", "worker"]
