#!/usr/bin/env bash
# Stops the cluster started by scripts/start-pg.sh (uses PGBIN / PGDATA_DIR it exported).
set -euo pipefail
[ -n "${PGDATA_DIR:-}" ] || exit 0
RUNAS=(); [ "$(id -u)" = 0 ] && RUNAS=(runuser -u postgres --)
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR/data" -m immediate stop >/dev/null 2>&1 || true
rm -rf "$PGDATA_DIR"
