# PostgreSQL 17 (the store) from Debian's package, since no registry is reachable to pull the
# official image. docker-stack/postgres-entrypoint.sh creates the cluster on first start.
FROM debian:trixie-slim
ENV DEBIAN_FRONTEND=noninteractive \
    PGDATA=/var/lib/postgresql/data \
    PATH=/usr/lib/postgresql/17/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The package's own cluster (main) is dropped: the entrypoint makes one in $PGDATA, the volume.
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-17 \
    && rm -rf /var/lib/apt/lists/* \
    && pg_dropcluster 17 main \
    && mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA"
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
