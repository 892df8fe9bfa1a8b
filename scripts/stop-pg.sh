#!/usr/bin/env bash
# Stops the cluster started by scripts/start-pg.sh (uses PGBIN / PGDATA_DIR / PG_RUNAS it exported).
set -euo pipefail
[ -n "${PGDATA_DIR:-}" ] || exit 0
RUNAS=(); [ -n "${PG_RUNAS:-}" ] && RUNAS=(runuser -u "$PG_RUNAS" --)
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA_DIR/data" -m immediate stop >/dev/null 2>&1 || true
rm -rf "$PGDATA_DIR"
