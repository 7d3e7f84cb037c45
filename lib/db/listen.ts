// One reconnecting Postgres LISTEN connection. Notifications are a latency
// optimisation everywhere they are used (the run queue, cache invalidation):
// callers learn whether the connection is live through `onState`, so they can
// fall back (poll, bypass a cache) while it is not.
import pg from "pg";
import type { Logger } from "@/lib/log";

export interface Listener {
  /** True while LISTEN is in effect on every channel. */
  readonly live: boolean;
  stop(): Promise<void>;
}

export interface ListenOptions {
  databaseUrl: string;
  channels: readonly string[];
  /** Shown in pg_stat_activity. */
  applicationName: string;
  onNotification(channel: string, payload: string): void;
  /** Called with true once listening, and with false when the connection is lost. */
  onState?(live: boolean): void;
  log: Logger;
  /** What to say when the connection is lost (the fallback in effect meanwhile). */
  lostMessage: string;
}

export function listen(opts: ListenOptions): Listener {
  let client: pg.Client | null = null;
  let stopped = false;
  let live = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  const setLive = (next: boolean) => {
    if (live === next) return;
    live = next;
    opts.onState?.(next);
  };

  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: opts.databaseUrl, application_name: opts.applicationName });
    const lost = (e: unknown) => {
      // Only the current connection counts, and only once ('error' is followed by 'end').
      if (client !== c) return;
      client = null;
      setLive(false);
      void c.end().catch(() => undefined);
      if (stopped) return;
      failures++;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
      opts.log.warn({ err: e instanceof Error ? e.message : String(e), retryInMs: delay }, opts.lostMessage);
      retry = setTimeout(connect, delay);
      retry.unref();
    };
    c.on("error", lost);
    c.on("end", () => lost(new Error("connection closed")));
    c.on("notification", (n) => {
      if (opts.channels.includes(n.channel)) opts.onNotification(n.channel, n.payload ?? "");
    });
    client = c;
    c.connect()
      .then(async () => {
        for (const channel of opts.channels) await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      })
      .then(() => {
        failures = 0;
        if (stopped) void c.end().catch(() => undefined);
        else if (client === c) setLive(true);
      })
      .catch(lost);
  };
  connect();

  return {
    get live() {
      return live;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      setLive(false);
      await c?.end().catch(() => undefined);
    },
  };
}
