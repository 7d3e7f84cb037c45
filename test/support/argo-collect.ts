// What the real-server suites that play Argo CD share: the Application CRD as
// far as they need it, a fresh database holding a config, one collection run
// of an environment as the collector process runs it, and the environment's
// open drift.
import path from "node:path";
import type { DriftwatchConfig } from "@/lib/config";
import type { PrismaClient } from "@/lib/db/generated/client";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { collectorContext, enqueueRun, executeRun, leaseRunById, syncConfigToDatabase } from "@/lib/collector";
import { logger } from "@/lib/log";

/** Argo CD's Application: the real CRD is ~1 MB of schema and has no status subresource either. */
export const ARGO_APPLICATION_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "applications.argoproj.io" },
  spec: {
    group: "argoproj.io",
    names: { kind: "Application", listKind: "ApplicationList", plural: "applications", singular: "application", shortNames: ["app", "apps"] },
    scope: "Namespaced",
    versions: [{ name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

/** The shared client over an emptied database that holds `config`'s environments. */
export async function databaseWith(config: DriftwatchConfig): Promise<PrismaClient> {
  const db = getPrisma();
  await resetDatabase(db);
  await syncConfigToDatabase(db, config);
  return db;
}

/** One run of `envName`, enqueued, leased and executed as a collector process does it; mirrors under `workDir`. */
export async function collectOnce(db: PrismaClient, config: DriftwatchConfig, envName: string, workDir: string) {
  const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
  const runId = await enqueueRun(db, env.id, "test");
  const leased = await leaseRunById(db, runId, "test-worker", 120_000);
  if (!leased) throw new Error("could not lease the run");
  const ctx = collectorContext(db, config, { mirrorsDir: path.join(workDir, "mirrors"), secretKey: Buffer.from("test-instance-key-0123456789abcdef"), log: logger.child({ test: true }) });
  return executeRun(ctx, leased, "test-worker", 120_000);
}

/** The environment's drift items still open, by key. */
export async function openDriftOf(db: PrismaClient, envName: string) {
  const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
  return db.driftItem.findMany({ where: { environmentId: env.id, resolvedAt: null }, orderBy: { key: "asc" } });
}
