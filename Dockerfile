# One image recipe for every process of Assay: the workspace to package is a build argument.
#   docker build --build-arg WORKSPACE=services/runs -t assay/runs .
#   docker build --build-arg WORKSPACE=gateway -t assay/gateway .
# (One parameterized file instead of one per service: the recipes were identical but for that argument, so
# a fix lands once. skaffold.yaml passes WORKSPACE per artifact.)
# Needs BuildKit (RUN --mount caches), the default builder since Docker 23.
# Base: the current Node LTS (24, "Krypton") pinned by digest, so a rebuild gets the same bytes; bump the
# tag and digest together (`docker buildx imagetools inspect node:24-bookworm-slim`). The code also runs on
# Node 20 (development machines), so an older LTS base works too.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# ---- manifests: the lockfile and every workspace's package.json, so the dependency layers below stay
#      cached until a manifest changes (npm ci checks them all against the lock)
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN set -eu; mkdir -p /out; cp package.json package-lock.json /out/; \
    for f in gateway/package.json test/package.json bench/package.json packages/*/package.json services/*/package.json; do \
      if [ -f "$f" ]; then mkdir -p "/out/$(dirname "$f")"; cp "$f" "/out/$f"; fi; \
    done

# ---- build: all dependencies, then generate the protobuf code and compile every workspace (tsc -b)
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# What the runtime needs of this workspace and of packages/*: package.json, dist/, and the SQL
# migrations (tsc does not copy them), wherever a workspace keeps them.
ARG WORKSPACE
RUN set -eu; [ -n "$WORKSPACE" ] || { echo "--build-arg WORKSPACE=gateway|services/<name> is required" >&2; exit 1; }; \
    mkdir -p /out; \
    for d in packages/* "$WORKSPACE"; do \
      [ -f "$d/package.json" ] || continue; \
      mkdir -p "/out/$d"; cp "$d/package.json" "/out/$d/"; \
      if [ -d "$d/dist" ]; then cp -R "$d/dist" "/out/$d/"; fi; \
      for m in migrations src/migrations; do \
        if [ -d "$d/$m" ]; then mkdir -p "/out/$d/$(dirname "$m")"; cp -R "$d/$m" "/out/$d/$m"; fi; \
      done; \
    done; \
    test -f "/out/$WORKSPACE/dist/main.js"

# ---- runtime: production dependencies of this workspace only, the compiled code, non-root user
FROM ${NODE_IMAGE} AS runtime
ARG WORKSPACE
ENV NODE_ENV=production
# tini as PID 1: forwards SIGTERM to node (which drains in-flight calls and consumers, then exits) and
# reaps zombies; node as PID 1 would ignore signals it has no handler for.
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* && tini --version
WORKDIR /app
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --workspace "$WORKSPACE" --include-workspace-root=false \
      --ignore-scripts --no-audit --no-fund
COPY --from=build /out/ ./
WORKDIR /app/$WORKSPACE
USER node
# The chart's container ports: services RPC_PORT 7000 (Connect/gRPC, h2c) and HTTP_PORT 9000 (/metrics,
# internal HTTP); the gateway PORT 8080 (public), ADMIN_PORT 7000 and METRICS_PORT 9000.
EXPOSE 7000 8080 9000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
