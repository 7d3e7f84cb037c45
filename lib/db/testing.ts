// Test helpers for suites that run against the shared test database.
import type { PrismaClient } from "./generated/client";

/**
 * Empties every table except `_prisma_migrations`, restarting id sequences.
 * The append-only trigger rejects TRUNCATE of "AuditEvent", so it is disabled
 * for this one transaction (ALTER TABLE … DISABLE TRIGGER needs only table
 * ownership, unlike `session_replication_role`, which needs a superuser; and
 * the ALTER's exclusive lock means no other session ever sees it disabled).
 */
export async function resetDatabase(prisma: PrismaClient): Promise<void> {
  const tables = await prisma.$queryRaw<Array<{ name: string }>>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;
  if (tables.length === 0) return;
  const list = tables.map((t) => `"${t.name.replaceAll('"', '""')}"`).join(", ");
  const hasAudit = tables.some((t) => t.name === "AuditEvent");
  await prisma.$transaction([
    ...(hasAudit ? [prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`)] : []),
    prisma.$executeRawUnsafe(`TRUNCATE TABLE ${list} RESTART IDENTITY CASCADE`),
    ...(hasAudit ? [prisma.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`)] : []),
  ]);
}
