# syntax=docker/dockerfile:1
# text-browser in a container: built on the official Rust image, run on Debian slim with Debian's
# Chromium, fonts and axe-core, as a non-root user.
#
#   docker build -t text-browser .
#   docker run --rm -p 3337:3337 --init --shm-size=1g -e API_KEY=change-me-0123456789 text-browser
#
# --init (or `init: true` in compose) reaps the processes Chromium leaves behind; --shm-size gives
# Chromium's renderers shared memory (Docker's 64 MB default makes big pages crash their tab).
# Budget about 150 MB of memory per open session on top of ~300 MB for Chromium itself.

FROM rust:1-bookworm AS builder
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin text-browser --bin text-browser-cli --bin fixtures \
 && cp target/release/text-browser target/release/text-browser-cli target/release/fixtures /usr/local/bin/

FROM debian:bookworm-slim AS runtime
ARG AXE_VERSION=4.10.3
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-color-emoji ca-certificates curl npm \
 && npm install --global --no-audit --no-fund "axe-core@${AXE_VERSION}" \
 && apt-get purge -y npm && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/* /root/.npm
RUN useradd --create-home --uid 10001 --user-group --shell /usr/sbin/nologin browser
COPY --from=builder /usr/local/bin/text-browser /usr/local/bin/text-browser-cli /usr/local/bin/fixtures /usr/local/bin/
COPY --from=builder /src/fixtures/site /opt/text-browser/fixtures
# The user `browser` (10001), by number: a host resolves it without our /etc/passwd.
USER 10001:10001
WORKDIR /home/browser
ENV HOST=0.0.0.0 \
    PORT=3337 \
    CHROME_PATH=/usr/bin/chromium \
    AXE_CORE_PATH=/usr/local/lib/node_modules/axe-core/axe.min.js \
    FIXTURES_DIR=/opt/text-browser/fixtures \
    LOG_FORMAT=json
EXPOSE 3337
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["sh", "-c", "curl -fsS \"http://127.0.0.1:${PORT}/healthz\" || exit 1"]
CMD ["text-browser"]
