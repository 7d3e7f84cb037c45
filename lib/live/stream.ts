// The server side of live pages: one server-sent-events stream per open
// browser tab, telling it which tables a committed transaction wrote (from
// the change feed, lib/db/change-feed.ts) so it refetches what it shows.
//
// What must stay true:
// - Nothing a viewer may not see: only the names of the dashboard's data
//   tables (lib/live/invalidation.ts) — never rows, never sign-ins.
// - Bounded per client: notifications wait in a set of table names (at most
//   one entry per table) and go out as one message when the client has read
//   what it was sent; a client that stops reading costs a fixed amount of
//   memory, not one message per change.
// - Heartbeats, so the browser (and any proxy) can tell a quiet stream from a
//   dead one.
// - The stream ends when the client goes, when the feed is lost (nobody can
//   say what changed meanwhile: the client falls back to polling and
//   reconnects), and when the session behind it ends.
import type { FeedEvent } from "@/lib/db/change-feed";
import { isLiveTable } from "./invalidation";

/** What the stream listens to: lib/db/change-feed.ts's ChangeFeed. */
export interface ChangeSource {
  readonly live: boolean;
  subscribe(listener: (event: FeedEvent) => void): () => void;
}

export interface ChangeStreamOptions {
  source: ChangeSource;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
  heartbeatMs?: number;
  /** How long the first notification of a burst waits for the rest of it. */
  coalesceMs?: number;
  /** Asked after sign-ins change; false ends the stream (the session is over). */
  stillSignedIn?: () => Promise<boolean>;
  /** Called once when the stream ends, whatever ended it. */
  onClose?: () => void;
}

export const HEARTBEAT_MS = 15_000;
const COALESCE_MS = 50;
/** Messages queued for one client before new changes wait in its table set instead. */
const QUEUED_MESSAGES = 4;
/** How soon a browser reconnects after the stream ends (EventSource's own retry). */
const RETRY_MS = 1_000;

export type StreamEvent = "ready" | "change" | "heartbeat" | "lost" | "signed-out";

export function sseMessage(event: StreamEvent, data: unknown, retryMs?: number): string {
  return `${retryMs === undefined ? "" : `retry: ${retryMs}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function openChangeStream(opts: ChangeStreamOptions): ReadableStream<Uint8Array> {
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  const coalesceMs = opts.coalesceMs ?? COALESCE_MS;
  const encoder = new TextEncoder();
  const pending = new Set<string>();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let unsubscribe: () => void = () => undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let flushTimer: NodeJS.Timeout | undefined;

  const room = () => !closed && (controller.desiredSize ?? 0) > 0;
  const send = (event: StreamEvent, data: unknown) => controller.enqueue(encoder.encode(sseMessage(event, data)));
  const cleanup = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    clearTimeout(flushTimer);
    opts.signal.removeEventListener("abort", onAbort);
    pending.clear();
    opts.onClose?.();
  };
  function end(last?: StreamEvent): void {
    if (closed) return;
    if (last) send(last, {});
    cleanup();
    try {
      controller.close();
    } catch {
      // already errored by the consumer going away
    }
  }
  const onAbort = () => end();
  const flush = () => {
    flushTimer = undefined;
    if (pending.size === 0 || !room()) return; // a full queue: pull() flushes once the client has read
    const tables = [...pending].sort();
    pending.clear();
    send("change", { tables });
  };
  const onFeed = (event: FeedEvent) => {
    if (closed) return;
    if (event.type === "state") {
      if (!event.live) end("lost");
      return;
    }
    if (event.topic === "auth") {
      if (opts.stillSignedIn) {
        void opts.stillSignedIn().then(
          (ok) => {
            if (!ok) end("signed-out");
          },
          () => undefined, // cannot tell now; the next sign-in change asks again
        );
      }
      return;
    }
    if (!isLiveTable(event.table)) return;
    pending.add(event.table);
    flushTimer ??= setTimeout(flush, coalesceMs);
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (opts.signal.aborted) return end();
        controller.enqueue(encoder.encode(sseMessage("ready", { heartbeatMs }, RETRY_MS)));
        unsubscribe = opts.source.subscribe(onFeed);
        opts.signal.addEventListener("abort", onAbort);
        heartbeat = setInterval(() => {
          if (room()) send("heartbeat", {});
        }, heartbeatMs);
        heartbeat.unref();
        // Lost between the caller's check and the subscription: say so now rather than never.
        if (!opts.source.live) end("lost");
      },
      pull() {
        if (!flushTimer) flush();
      },
      cancel() {
        cleanup();
      },
    },
    new CountQueuingStrategy({ highWaterMark: QUEUED_MESSAGES }),
  );
}
