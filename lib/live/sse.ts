// Reading server-sent events in the browser with fetch rather than
// EventSource: fetch tells a 401 (signed out: stop quietly) from a 503 (the
// server cannot stream now: poll, retry) and lets us decide when to retry.
// Pure: text in, events and the unfinished remainder out.

export interface SseEvent {
  event: string;
  data: string;
}

/** The complete events at the start of `buffer`, and what is left of it (an event still arriving). */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  const text = buffer.replace(/\r\n?/g, "\n");
  let start = 0;
  let cut: number;
  while ((cut = text.indexOf("\n\n", start)) >= 0) {
    const block = text.slice(start, cut);
    start = cut + 2;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue; // a comment
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return { events, rest: text.slice(start) };
}

/** Waits before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s … at most 30 s, with up to 20% jitter so tabs do not return in step. */
export function reconnectDelayMs(attempt: number, random: number = Math.random()): number {
  const base = Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (1 + 0.2 * random));
}
