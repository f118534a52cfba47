# Engram in a container: the single binary on a small Debian base, run as a non-root user, with
# the data directory as a volume. Build: docker build -t engram .
# Run:   docker run -p 127.0.0.1:8787:8787 -v engram-data:/data engram

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node_modules/.bin/bun scripts/build.ts --outfile /out/engram

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home engram \
 && mkdir -p /data \
 && chown engram:engram /data
COPY --from=build /out/engram /usr/local/bin/engram
USER 10001:10001
# Inside the container the server must listen on every interface; publish the port on the
# host's loopback only (-p 127.0.0.1:8787:8787) unless you mean to share it.
ENV ENGRAM_HOST=0.0.0.0 \
    ENGRAM_PORT=8787 \
    ENGRAM_DATA_DIR=/data \
    ENGRAM_PUBLIC_URL=http://127.0.0.1:8787 \
    HOME=/data
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["engram", "health", "--url", "http://127.0.0.1:8787"]
ENTRYPOINT ["engram"]
CMD ["serve"]
