// Which tables changed, as Postgres tells us: statement-level triggers (see
// the change_feed migration) send the table's name on `driftwatch_changes`
// when a transaction that wrote it commits. In-process caches key their
// entries by a topic's generation, which moves on every such notification, so
// a cached answer is never served once the data under it has changed — in
// this process or any other (collectors, the CLI, other web processes).
//
// While the LISTEN connection is down nobody can tell what changed: the
// generation is then `null` and caches must compute afresh. When it comes
// back, every generation moves (changes may have been missed meanwhile).
import { logger, type Logger } from "@/lib/log";
import { listen, type Listener } from "./listen";
import { databaseUrl } from "./url";

export const CHANGES_CHANNEL = "driftwatch_changes";

/** Who is signed in (sessions, users) versus everything the dashboard shows. */
export type ChangeTopic = "auth" | "data";

const AUTH_TABLES = new Set(["Session", "User"]);

export function topicOf(table: string): ChangeTopic {
  return AUTH_TABLES.has(table) ? "auth" : "data";
}

/** What a subscriber hears: a committed write to a table, or the feed going down or coming back. */
export type FeedEvent = { type: "table"; table: string; topic: ChangeTopic } | { type: "state"; live: boolean };

export interface ChangeFeed {
  /** The topic's current generation, or null while changes cannot be observed. */
  generation(topic: ChangeTopic): number | null;
  /** True while notifications arrive (the LISTEN connection is up). */
  readonly live: boolean;
  /**
   * Hears every notification and every state change until the returned
   * function is called. A listener that throws is dropped, not retried: one
   * broken subscriber must not stop the others.
   */
  subscribe(listener: (event: FeedEvent) => void): () => void;
  /**
   * This process has just committed a change itself: move every generation
   * now, so its next read does not wait for the notification to come back.
   */
  touch(): void;
  stop(): Promise<void>;
}

export function startChangeFeed(databaseUrl: string, log: Logger = logger): ChangeFeed {
  const generations: Record<ChangeTopic, number> = { auth: 0, data: 0 };
  const bumpAll = () => {
    generations.auth++;
    generations.data++;
  };
  const listeners = new Set<(event: FeedEvent) => void>();
  const tell = (event: FeedEvent) => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (e) {
        listeners.delete(l);
        log.warn({ err: e instanceof Error ? e.message : String(e) }, "a change-feed subscriber failed and was dropped");
      }
    }
  };
  const listener: Listener = listen({
    databaseUrl,
    channels: [CHANGES_CHANNEL],
    applicationName: "driftwatch-change-feed",
    log,
    lostMessage: "change notifications lost; caches are bypassed meanwhile",
    onNotification: (_channel, table) => {
      const topic = topicOf(table);
      generations[topic]++;
      tell({ type: "table", table, topic });
    },
    onState: (live) => {
      bumpAll();
      tell({ type: "state", live });
    },
  });
  return {
    generation: (topic) => (listener.live ? generations[topic] : null),
    get live() {
      return listener.live;
    },
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    touch: bumpAll,
    stop: () => listener.stop(),
  };
}

interface Held {
  url: string;
  feed: ChangeFeed;
}
const holder = globalThis as typeof globalThis & { __driftwatchChangeFeed?: Held };

/**
 * This process's feed for databaseUrl(), started on first use (so scripts that
 * never cache never open the connection). Kept on globalThis: Next.js bundles
 * the proxy and the routes separately, and both must share one feed.
 */
export function changeFeed(): ChangeFeed | null {
  const url = databaseUrl();
  if (!url) return null;
  const held = holder.__driftwatchChangeFeed;
  if (held?.url === url) return held.feed;
  if (held) void held.feed.stop();
  const feed = startChangeFeed(url);
  holder.__driftwatchChangeFeed = { url, feed };
  return feed;
}

export async function stopChangeFeed(): Promise<void> {
  const held = holder.__driftwatchChangeFeed;
  holder.__driftwatchChangeFeed = undefined;
  await held?.feed.stop();
}
