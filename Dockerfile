# syntax=docker/dockerfile:1
# little-canary as a container image: the CLI as the entrypoint, running as a non-root user, with
# the package's production dependencies only. Used by examples/kubernetes (docs/shards.md, "The
# image"); no image is published, so build your own and pin it by digest:
#   docker build -t registry.example/little-canary:0.1.0 .
#   docker run --rm registry.example/little-canary:0.1.0 --help
# Node 20.19 or later (engines in package.json); NODE_VERSION=22 builds on Node 22 instead.
ARG NODE_VERSION=20

# Build: the full toolchain (TypeScript and the other dev dependencies, and a compiler for
# better-sqlite3 where no prebuilt binary fits), then the package exactly as `npm pack` ships it.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# `npm pack` runs the build (prepack); the tarball holds only the files package.json ships.
RUN npm pack --pack-destination /tmp \
  && mkdir /app \
  && tar -xzf /tmp/little-canary-*.tgz -C /app --strip-components=1 \
  && cp package-lock.json /app/
WORKDIR /app
# The runtime dependencies only, at the versions the lockfile pins.
RUN npm ci --omit=dev --no-audit --no-fund \
  && rm package-lock.json \
  && npm cache clean --force

# Runtime: a small base with the same Debian release (better-sqlite3's binary needs its glibc).
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
COPY --from=build /app /app
RUN chmod 0755 /app/dist/cli/main.js \
  && ln -s /app/dist/cli/main.js /usr/local/bin/little-canary
# The image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
WORKDIR /home/node
ENTRYPOINT ["little-canary"]
CMD ["--help"]
