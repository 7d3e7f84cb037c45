// vitest globalSetup of the integration and faults projects: one migrated
// Postgres for the whole run. DATABASE_URL, when set, must name a server on
// this machine (tests empty its tables); otherwise an embedded Postgres is
// started in a fresh temporary folder on a free port and removed afterwards.
// Tests read the URL from process.env.DATABASE_URL (worker processes are
// started after this runs, so they inherit it) or from inject("databaseUrl").
// Like the app, tests connect as the application role (lib/db/roles.ts), which
// owns nothing; DATABASE_MIGRATION_URL / inject("ownerDatabaseUrl") is the
// owner (resetDatabase uses it) and inject("superuserDatabaseUrl") the
// superuser (creating scratch databases). With DATABASE_URL given, all three
// are that URL.
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { applyMigrations } from "../../lib/db/migrate";
import { APP_ROLE, ensureEmbeddedRoles, grantApplicationRole } from "../../lib/db/roles";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    ownerDatabaseUrl: string;
    superuserDatabaseUrl: string;
  }
}

interface Shared {
  url: string;
  ownerUrl: string;
  superuserUrl: string;
  users: number;
  previousUrl: string | undefined;
  previousOwnerUrl: string | undefined;
  stop(): Promise<void>;
}

// Both projects of one run use this setup; they share one server (globalThis
// survives across the two module instances vitest may load).
const KEY = Symbol.for("driftwatch.test-postgres");
const holder = globalThis as typeof globalThis & { [KEY]?: Promise<Shared> };

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

function assertLocal(url: string): void {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    throw new Error("DATABASE_URL is not a valid URL; unset it to let the tests start their own Postgres.");
  }
  if (!LOCAL_HOSTS.has(host)) {
    throw new Error(
      `Refusing to run tests against DATABASE_URL on host "${host}": tests delete data. ` +
        "Point it at a Postgres on localhost, or unset it to let the tests start their own.",
    );
  }
}

async function start(): Promise<Shared> {
  const previousUrl = process.env.DATABASE_URL;
  const previousOwnerUrl = process.env.DATABASE_MIGRATION_URL;
  if (previousUrl) {
    assertLocal(previousUrl);
    await applyMigrations(previousUrl);
    return { url: previousUrl, ownerUrl: previousUrl, superuserUrl: previousUrl, users: 0, previousUrl, previousOwnerUrl, stop: async () => {} };
  }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-test-pg-"));
  const started = performance.now();
  try {
    const server = await startEmbeddedPostgres({ dataDir: dir });
    const roles = await ensureEmbeddedRoles(server.url);
    await applyMigrations(roles.ownerUrl);
    await grantApplicationRole(roles.ownerUrl, APP_ROLE);
    console.log(`[test db] embedded Postgres on port ${server.port}, ready and migrated in ${Math.round(performance.now() - started)} ms`);
    return {
      url: roles.appUrl,
      ownerUrl: roles.ownerUrl,
      superuserUrl: server.url,
      users: 0,
      previousUrl,
      previousOwnerUrl,
      stop: async () => {
        await server.stop();
        await fsp.rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await fsp.rm(dir, { recursive: true, force: true });
    throw e;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pending = (holder[KEY] ??= start());
  const shared = await pending.catch((e: unknown) => {
    delete holder[KEY];
    throw e;
  });
  shared.users += 1;
  process.env.DATABASE_URL = shared.url;
  process.env.DATABASE_MIGRATION_URL = shared.ownerUrl;
  project.provide("databaseUrl", shared.url);
  project.provide("ownerDatabaseUrl", shared.ownerUrl);
  project.provide("superuserDatabaseUrl", shared.superuserUrl);

  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[KEY];
    if (shared.previousUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = shared.previousUrl;
    if (shared.previousOwnerUrl === undefined) delete process.env.DATABASE_MIGRATION_URL;
    else process.env.DATABASE_MIGRATION_URL = shared.previousOwnerUrl;
    await shared.stop();
  };
}
