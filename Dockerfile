# One image recipe for every process of Assay: the workspace to package is a build argument.
#   docker build --build-arg WORKSPACE=services/runs -t assay/runs .
#   docker build --build-arg WORKSPACE=gateway -t assay/gateway .
# (One parameterized file instead of one per service: the recipes were identical but for that argument, so
# a fix lands once. skaffold.yaml passes WORKSPACE per artifact.)
# Needs BuildKit (RUN --mount caches), the default builder since Docker 23.
# Base: the current Node LTS (24, "Krypton") pinned by digest, so a rebuild gets the same bytes; bump the
# tag and digest together (`docker buildx imagetools inspect node:24-bookworm-slim`). `make up` and `make test`
# run the same major version (scripts/lib/node.sh).
# The file layout comes from scripts/image/stage.sh, which the runtime-stage smoke test of `make test` runs too
# (test/image/runtime-stage.test.ts): what is tested is what the image holds.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# ---- manifests: the lockfile and every workspace's package.json, so the dependency layers below stay
#      cached until a manifest changes (npm ci checks them all against the lock)
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN bash scripts/image/stage.sh manifests /src /out

# ---- build: all dependencies, then generate the protobuf code and compile every workspace (tsc -b)
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# What the runtime needs of this workspace and of packages/*: package.json, dist/, and the SQL migrations.
ARG WORKSPACE
RUN set -eu; [ -n "$WORKSPACE" ] || { echo "--build-arg WORKSPACE=gateway|services/<name> is required" >&2; exit 1; }; \
    bash scripts/image/stage.sh artifacts "$WORKSPACE" /app /out

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
RUN --mount=type=cache,target=/root/.npm --mount=type=bind,source=scripts/image/stage.sh,target=/tmp/stage.sh \
    bash /tmp/stage.sh install "$WORKSPACE" /app
COPY --from=build /out/ ./
# The identity image's /app/bin holds `assay`, the admin CLI (docs/deploy.md); in other images it is absent.
ENV PATH=/app/bin:$PATH
WORKDIR /app/$WORKSPACE
USER node
# The chart's container ports: services RPC_PORT 7000 (Connect/gRPC, h2c) and HTTP_PORT 9000 (/metrics,
# internal HTTP); the gateway PORT 8080 (public) and METRICS_PORT 9000.
EXPOSE 7000 8080 9000
ENTRYPOINT ["/usr/bin/tini", "--"]
# The V8 flags of every process (NODE_FLAGS and SEMI_SPACE_MB in packages/testkit/src/processes.ts say why):
# young-generation semi-spaces of SEMI_SPACE_MB, 8 MB but 32 for the runs image (skaffold.yaml), in NODE_OPTIONS, so
# a container whose env sets NODE_OPTIONS must repeat it (charts/assay/ci/external-values.yaml does); V8's default
# grows them to 32 MB and keeps them, ~50 MB of idle RSS a process. gc() for the memory watchers
# (packages/service-kit/src/memory.ts: stream buffers, and giving memory back once idle), and an old generation
# that may grow to twice what survived its last full GC (V8's own factor can leave a small heap marking without end).
# glibc malloc: two arenas, freed memory at the top of the heap given back above 128 KiB, and blocks from 64 KiB (a
# socket read's buffer) mapped on their own (MALLOC_ENV in processes.ts says why).
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=65536
ARG SEMI_SPACE_MB=8
ENV NODE_OPTIONS="--max-semi-space-size=${SEMI_SPACE_MB}"
CMD ["node", "--heap-growing-percent=100", "--expose-gc", "dist/main.js"]
