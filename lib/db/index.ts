// What the rest of the app uses from lib/db. Starting a database is not here
// (import `@/lib/db/ensure-database` from entry points): route handlers that
// import this module must not pull in process management.
export { getPrisma, disconnectPrisma } from "./client";
export { databaseUrl } from "./url";
export { applyMigrations, pendingMigrations, MigrationError } from "./migrate";
export type { PrismaClient, Prisma } from "./generated/client";
