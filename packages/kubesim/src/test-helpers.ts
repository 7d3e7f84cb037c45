// Raw HTTPS access to a running sim, for tests that check the wire format
// itself (Status bodies, watch streams, headers) rather than a client's view.
import https from "node:https";
import type { KubeSim } from "./server";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface RawOptions {
  body?: unknown;
  contentType?: string;
  token?: string | null;
  accept?: string;
  userAgent?: string;
}

export function raw(sim: KubeSim, method: string, path: string, o: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(path, sim.url);
  const body = o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { Accept: o.accept ?? "application/json" };
  const token = o.token === undefined ? sim.tokens.admin : o.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = o.contentType ?? "application/json";
  if (o.userAgent) headers["User-Agent"] = o.userAgent;
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, ca: sim.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface WatchEventLine {
  type: string;
  object: Record<string, unknown>;
}

export interface OpenWatch {
  status: number;
  events: WatchEventLine[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  waitFor(pred: (events: WatchEventLine[]) => boolean, timeoutMs?: number): Promise<WatchEventLine[]>;
  close(): void;
}

/** Opens a watch and collects its newline-delimited events as they arrive. */
export function openWatch(sim: KubeSim, path: string, token: string = sim.tokens.admin): Promise<OpenWatch> {
  const url = new URL(path, sim.url);
  return new Promise((resolve, reject) => {
    const events: WatchEventLine[] = [];
    const listeners = new Set<() => void>();
    let buf = "";
    const req = https.request(url, { method: "GET", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" }, ca: sim.caPem }, (res) => {
      let endResolve: () => void = () => undefined;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEventLine);
        }
        for (const l of [...listeners]) l();
      });
      res.on("end", () => {
        endResolve();
        for (const l of [...listeners]) l();
      });
      res.on("error", () => endResolve());
      resolve({
        status: res.statusCode ?? 0,
        events,
        ended,
        waitFor(pred, timeoutMs = 5000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (pred(events)) {
                listeners.delete(check);
                clearTimeout(t);
                ok(events);
              }
            };
            const t = setTimeout(() => {
              listeners.delete(check);
              fail(new Error(`watch condition not met; events: ${JSON.stringify(events.map((e) => e.type))}`));
            }, timeoutMs);
            listeners.add(check);
            check();
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on("error", (e) => {
      if (!(e as NodeJS.ErrnoException).code?.startsWith("ECONNRESET")) reject(e);
    });
    req.end();
  });
}

/** Polls until `fn` returns a value that is not undefined/false, or throws the last error. */
export async function eventually<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000, stepMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) throw lastErr instanceof Error ? lastErr : new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
