# The service as one image: `docker build -t petstore .`, or `docker compose build`, which builds it
# once for both instances of docker-compose.yml.

# Node 24, the LTS CI proves (.nvmrc). SQLite's driver comes prebuilt in its package: no compiler.
FROM node:24-bookworm-slim AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /src
COPY . .
# The build installs what the service needs and nothing else of the workspace (the example app,
# the bench, the test and lint tools), each from the lockfile: esbuild alone (tools/build, a
# package of its own) to transpile core and the API, then the API with its production
# dependencies into /service. Each deploy copies its workspace packages in (injected) and takes
# every version from the lockfile as it stands: nothing is resolved again from the registry.
# apps/api/test/image-build.test.ts runs these commands as written, in a copy of what this COPY
# takes, but for the two folders' paths.
RUN pnpm --config.inject-workspace-packages=true --filter @petstore/build deploy --prod /build
RUN node /build/transpile.mjs packages/core apps/api
RUN pnpm --config.inject-workspace-packages=true --filter @petstore/api deploy --prod /service

FROM node:24-bookworm-slim
# A key printed at the first start would stay in the container's log for whoever reads it: the log
# says how to make one instead (docs/operating.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 PETSTORE_DB=/data/petstore.db FIRST_API_KEY=hint
WORKDIR /service
COPY --from=build /service .
RUN mkdir /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 CMD node -e "fetch('http://127.0.0.1:3000/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The same command as `pnpm start` (apps/api/package.json); a test keeps the two equal. In the
# image, `node dist/main.js --help` says what it is, and the commands beside it name themselves
# as run here: `node dist/cli/keys.js help`, `node dist/cli/backup.js --help`.
CMD ["node", "--max-old-space-size=128", "--max-semi-space-size=4", "dist/main.js"]
