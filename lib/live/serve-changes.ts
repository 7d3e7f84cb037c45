// GET /api/live: the change stream for a signed-in reader, or a 503 that
// sends the browser to its fallback poll (and to retry with backoff) while
// this process cannot hear the database's notifications.
import { ApiError } from "@/lib/api/errors";
import { changeFeed, type ChangeFeed } from "@/lib/db/change-feed";
import { readSessionCached } from "@/lib/auth/session-cache";
import { openChangeStream } from "./stream";

/** Open streams one process serves at most: beyond that, browsers poll (each stream holds a socket). */
export const MAX_STREAMS = 1_000;
/** How long a request waits for a feed that is still connecting (the first request after start). */
const FEED_WAIT_MS = 2_000;
let open = 0;

function untilLive(feed: ChangeFeed, ms: number): Promise<boolean> {
  if (feed.live) return Promise.resolve(true);
  return new Promise((resolve) => {
    const stop = feed.subscribe((e) => {
      if (e.type === "state" && e.live) done(true);
    });
    const timer = setTimeout(() => done(feed.live), ms);
    function done(live: boolean) {
      clearTimeout(timer);
      stop();
      resolve(live);
    }
  });
}

export async function serveChanges(signal: AbortSignal, sessionToken: string | undefined): Promise<Response> {
  const feed = changeFeed();
  if (!feed || !(await untilLive(feed, FEED_WAIT_MS))) {
    throw new ApiError("unavailable", "Live updates are unavailable: this server does not receive the database's change notifications right now. Pages poll meanwhile.");
  }
  if (open >= MAX_STREAMS) throw new ApiError("unavailable", "Too many live connections on this server; pages poll meanwhile.");
  open++;
  const body = openChangeStream({
    source: feed,
    signal,
    stillSignedIn: async () => (await readSessionCached(sessionToken)) !== null,
    onClose: () => open--,
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: compression would hold messages back until a buffer fills.
      "cache-control": "no-store, no-transform",
      // nginx and similar proxies buffer responses unless told not to.
      "x-accel-buffering": "no",
    },
  });
}
