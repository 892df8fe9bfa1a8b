import { fileURLToPath } from "node:url";

/** prisma/schema.prisma at the repository root: the single source of the data model. */
export const schemaPath = fileURLToPath(new URL("../../../prisma/schema.prisma", import.meta.url));

/** prisma/migrations: `<yyyymmddhhmmss>_<name>/migration.sql` folders, Prisma's layout. */
export const migrationsDir = fileURLToPath(new URL("../../../prisma/migrations", import.meta.url));
