// What the package's callers see (options, the handle, the error and its
// codes) and the names every part of the supervisor shares.

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster and Driftwatch's bookkeeping files; created when missing. */
  dataDir: string;
  /** Fixed port; without it the last used port is reused when free, else a free one is picked. */
  port?: number;
  /** Progress messages (not the server log, which goes to `postgres.log` in dataDir). */
  log?: (message: string) => void;
  /** Tests only: take the binaries from this copy of the package's `native` folder. */
  nativeDir?: string;
}

export interface EmbeddedPostgres {
  /** Connection URL of the `driftwatch` database. */
  url: string;
  port: number;
  dataDir: string;
  /** Fast shutdown (SIGINT), then releases the data folder. Safe to call twice. */
  stop(): Promise<void>;
}

export type EmbeddedPostgresErrorCode =
  | "DATA_DIR_IN_USE"
  | "DATA_DIR_NOT_ACCESSIBLE"
  | "DATA_DIR_WRONG_OWNER"
  | "BINARIES_UNAVAILABLE"
  | "START_FAILED";

export class EmbeddedPostgresError extends Error {
  override readonly name = "EmbeddedPostgresError";
  constructor(
    readonly code: EmbeddedPostgresErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const DATABASE_NAME = "driftwatch";
export const SUPERUSER = "postgres";
export const READY_TIMEOUT_MS = 60_000;
export const STOP_TIMEOUT_MS = 30_000;

export function connectionUrl(port: number, password: string, database: string): string {
  return `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}
