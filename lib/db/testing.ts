// Test helpers for suites that run against the shared test database.
import pg from "pg";
import { env } from "@/lib/env";
import type { PrismaClient } from "./generated/client";

/**
 * Empties every table except `_prisma_migrations`, restarting id sequences.
 * Only the tables' owner may: the application role cannot truncate, and the
 * append-only trigger rejects TRUNCATE of "AuditEvent", so the owner
 * (`ownerUrl`, by default DATABASE_MIGRATION_URL; without it the role
 * `prisma` connects as) disables
 * it for this one transaction. ALTER TABLE … DISABLE TRIGGER needs only table
 * ownership, and its exclusive lock means no other session ever sees the
 * trigger disabled.
 */
export async function resetDatabase(prisma: PrismaClient, ownerUrl: string | undefined = env().DATABASE_MIGRATION_URL): Promise<void> {
  if (!ownerUrl) {
    const tables = await prisma.$queryRawUnsafe<Array<{ name: string }>>(LIST_TABLES);
    const statements = resetStatements(tables);
    if (statements.length > 0) await prisma.$transaction(statements.map((sql) => prisma.$executeRawUnsafe(sql)));
    return;
  }
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const statements = resetStatements((await client.query<{ name: string }>(LIST_TABLES)).rows);
    // Without parameters pg sends one simple query: the script runs as one transaction.
    if (statements.length > 0) await client.query(["BEGIN", ...statements, "COMMIT"].join(";\n"));
  } finally {
    await client.end();
  }
}

const LIST_TABLES = `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;

function resetStatements(tables: Array<{ name: string }>): string[] {
  if (tables.length === 0) return [];
  const list = tables.map((t) => `"${t.name.replaceAll('"', '""')}"`).join(", ");
  const hasAudit = tables.some((t) => t.name === "AuditEvent");
  return [
    ...(hasAudit ? [`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`] : []),
    `TRUNCATE TABLE ${list} RESTART IDENTITY CASCADE`,
    ...(hasAudit ? [`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`] : []),
  ];
}
