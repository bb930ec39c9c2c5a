#!/bin/sh
# Create the cluster, role and database on first start, then run postgres in the foreground.
#
# Listens on 127.0.0.1 only (the stack shares the host's network namespace: dockerd here has
# no bridge) with trust authentication, like the machine's own PostgreSQL in the tests: the
# database is reachable only from this host. Set POSTGRES_PORT, POSTGRES_USER, POSTGRES_DB.
set -eu
PORT="${POSTGRES_PORT:-5440}"
USER_NAME="${POSTGRES_USER:-judge}"
DB_NAME="${POSTGRES_DB:-judge}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    initdb --username=postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /tmp" -w start >/dev/null
    psql -h /tmp -U postgres -v ON_ERROR_STOP=1 -q <<SQL
CREATE ROLE "$USER_NAME" LOGIN;
CREATE DATABASE "$DB_NAME" OWNER "$USER_NAME";
SQL
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "postgres-entrypoint: created database $DB_NAME for role $USER_NAME"
fi

exec postgres -D "$PGDATA" -c listen_addresses=127.0.0.1 -c port="$PORT" \
    -c unix_socket_directories=/tmp
