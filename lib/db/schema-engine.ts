// Prisma's schema engine as WebAssembly, for developer tools and tests only
// (writing a migration's SQL, checking that Prisma sees our migration records).
// The Prisma CLI would download a native engine, which our machines cannot.
// Its package imports the .wasm as an ES module, which Node 20 cannot load, so
// we instantiate it by hand. The engine reaches Postgres through the pg driver
// adapter and insists on a live connection even for schema-to-schema diffs.
// Never use it to apply migrations: the adapter splits scripts on ";", which
// breaks function bodies (see migrate.ts for how migrations are applied).
import fsp from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as engineModule from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { DiagnoseMigrationHistoryOutput, MigrationList } from "@prisma/schema-engine-wasm/schema_engine_bg";
import { readMigrations } from "./migrate";

const noFilters = { externalTables: [], externalEnums: [] };

let loaded: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const glue = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bytes = await fsp.readFile(glue.replace(/\.js$/, ".wasm"));
    const imports = { "./schema_engine_bg.js": engineModule as unknown as WebAssembly.ModuleImports };
    const { instance } = await WebAssembly.instantiate(bytes, imports);
    engineModule.__wbg_set_wasm(instance.exports);
    const start = instance.exports.__wbindgen_start;
    if (typeof start === "function") (start as () => void)();
  })();
  return loaded;
}

export interface SchemaEngineSession {
  /** SQL turning schema `from` (Prisma schema text, or null for an empty database) into `to`. Empty when there is nothing to do. */
  diff(from: string | null, to: string): Promise<string>;
  /** Prisma's own view of the migration history in the database (what `prisma migrate status/deploy` see). */
  diagnose(migrationsDir: string): Promise<DiagnoseMigrationHistoryOutput>;
  close(): void;
}

export async function openSchemaEngine(databaseUrl: string, schema: string): Promise<SchemaEngineSession> {
  await loadWasm();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: databaseUrl }));
  const engine = await engineModule.SchemaEngine.new({ datamodels: [["schema.prisma", schema]] }, () => {}, adapter);
  const files = (content: string) => [{ path: "schema.prisma", content }];
  return {
    async diff(from, to) {
      const result = await engine.diff({
        from: from === null ? { tag: "empty" } : { tag: "schemaDatamodel", files: files(from) },
        to: { tag: "schemaDatamodel", files: files(to) },
        script: true,
        exitCode: null,
        filters: noFilters,
      });
      const sql = result.stdout ?? "";
      const hasStatements = sql.split("\n").some((line) => line.trim() !== "" && !line.trim().startsWith("--"));
      return hasStatements ? sql : "";
    },
    async diagnose(migrationsDir) {
      return engine.diagnoseMigrationHistory({
        migrationsList: await migrationList(migrationsDir),
        optInToShadowDatabase: false,
        filters: noFilters,
      });
    },
    close() {
      engine.free();
    },
  };
}

async function migrationList(migrationsDir: string): Promise<MigrationList> {
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  const lock = await fsp.readFile(lockPath, "utf8").catch(() => null);
  const migrations = await readMigrations(migrationsDir);
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: lock },
    shadowDbInitScript: "",
    migrationDirectories: migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.script } },
    })),
  };
}
