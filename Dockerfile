# syntax=docker/dockerfile:1
# CAESAR image: the `caesar` CLI, which runs the brain (`brain`) and tool workers
# (`legion serve-tool <name>`). docker-compose.yml runs one container per process;
# docs/operations.md ("Containers") explains the setup.

# ---- build: compile TypeScript, then drop dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
# `npm run build` bundles the CLI and the threads after tsc (ADR 0047, ADR 0104)
COPY scripts/bundle.mjs ./scripts/bundle.mjs
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: production dependencies and compiled code, as user caesar ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# The uid/gid that owns the ./var bind mount on the host (docker-compose.yml passes
# CAESAR_UID/CAESAR_GID). The base image's `node` user (1000) makes way for `caesar`.
ARG CAESAR_UID=1000
ARG CAESAR_GID=1000
RUN userdel --remove node 2>/dev/null; groupdel node 2>/dev/null; \
  groupadd --gid "${CAESAR_GID}" caesar \
  && useradd --uid "${CAESAR_UID}" --gid caesar --home-dir /app --no-create-home \
    --shell /usr/sbin/nologin caesar
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config ./config
COPY policy ./policy
# the dashboard's static files, served by the brain at / (docs/dashboard.md)
COPY web ./web
RUN mkdir -p /app/var && chown caesar:caesar /app/var
USER caesar
# Runtime state (audit log, API tokens, conversations) and the policy (hot-reloaded).
VOLUME ["/app/var", "/app/policy"]
EXPOSE 8420
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["--help"]
