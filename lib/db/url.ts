// Which Postgres this process talks to: the one ensureDatabase started and
// named (the embedded server's application role), else DATABASE_URL. Kept on
// globalThis because Next.js bundles its own copy of lib/ into the process
// whose entry point started the database: both copies must reach one server.
// Child processes (web processes) are handed the URL as DATABASE_URL.
import { env } from "@/lib/env";

const holder = globalThis as typeof globalThis & { __driftwatchDatabaseUrl?: string };

export function databaseUrl(): string | undefined {
  return holder.__driftwatchDatabaseUrl ?? env().DATABASE_URL;
}

/** ensureDatabase names the database it started; undefined forgets it (after it stopped). */
export function publishDatabaseUrl(url: string | undefined): void {
  holder.__driftwatchDatabaseUrl = url;
}
