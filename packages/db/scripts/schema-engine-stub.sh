#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded here. `prisma generate` only
# needs PRISMA_SCHEMA_ENGINE_BINARY to name an existing file. Migrations: npm run db:new / db:migrate.
echo "rye: the native Prisma schema engine is not installed; use npm run db:new / npm run db:migrate" >&2
exit 1
