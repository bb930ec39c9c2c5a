# Redis (the Celery broker and result backend) from Debian's package, since no registry is
# reachable to pull the official image. The port comes from the compose file.
FROM debian:trixie-slim
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/*
USER redis
# The broker's state is disposable: no RDB snapshots, no append-only file.
ENTRYPOINT ["redis-server", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
CMD ["--port", "6390"]
