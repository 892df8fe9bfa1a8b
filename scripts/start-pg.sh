#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1:$PGPORT (trust auth, no fsync) and prints
# `export …` lines for eval. Stop it with scripts/stop-pg.sh.
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PGPORT=${PGPORT:-54329}
PGDATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rye-pgdata.XXXXXX")
RUNAS=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PGDATA_DIR"; RUNAS=(runuser -u postgres --); fi
"${RUNAS[@]}" "$PGBIN/initdb" -D "$PGDATA_DIR/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 >/dev/null
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR/data" -l "$PGDATA_DIR/log" -w \
  -o "-p $PGPORT -k $PGDATA_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
echo "export PGBIN=$PGBIN PGDATA_DIR=$PGDATA_DIR DATABASE_URL=postgresql://postgres@127.0.0.1:$PGPORT/postgres"
