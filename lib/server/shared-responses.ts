// Responses kept per process for a few seconds and served again to every
// signed-in reader of the same role: rendered pages, and the dashboard reads
// every open page polls (the environments list, an environment, its drift).
// For pages this is what Next.js's own full-route cache (ISR) would do for us
// if our pages could be static. They cannot: each response carries a fresh
// CSP nonce on its scripts (proxy.ts), which forces a render per request —
// 4–8 ms of CPU for React alone. For the reads it skips Next.js's routing and
// response path (1.5–2.5 ms of CPU; the answer itself is already cached, see
// lib/dashboard/cached.ts). During an incident 50 people open the same
// environment and their browsers poll it; one response serves them all.
//
// Why this is safe:
// - Pages render nothing personal. Who is signed in, their role's buttons and
//   the CSRF token come from /api/auth/session in the browser; the HTML is
//   the same for every user, and entries are keyed by role besides the URL in
//   case a page ever shows one role more than another. API reads are shared
//   only where the caller names them (isSharedRead): answers that do not
//   depend on who asks.
// - Every hit checks the session first (the same cached lookup the proxy
//   does), so a signed-out or expired visitor never gets a page from here.
// - An entry dies with the next committed change to the data (the change
//   feed's generation, lib/db/change-feed) and after `ttlMs` regardless;
//   while the feed is down nothing is served from here.
// - Each page hit gets a new nonce in the body and in the CSP header. Markup
//   that could carry the old nonce was rendered before anyone could know it.
// - Only pages that rendered completely are kept: a 200 HTML response without
//   Set-Cookie and without the marks Next.js streams when a page turns out to
//   be a 404, a redirect or an error after the 200 has gone out (pages stream
//   behind app/loading.tsx); for reads, a 200 JSON answer. Client-side
//   navigations (RSC requests), prefetches, conditional requests and URLs
//   Next.js would normalise pass through untouched.
//
// Misses stream from Next.js exactly as before, copied on the way out.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { VersionedCache } from "@/lib/cache/versioned-cache";

/** A rendered page (HTML with a nonce) or a shared API read (JSON). */
type Kind = "page" | "read";

export interface SharedResponse {
  headers: OutgoingHttpHeaders;
  /** The body split around the nonce a page was rendered with: a hit joins the pieces with a new one. */
  pieces: Buffer[];
  /** Null for JSON reads, which carry none. */
  nonce: string | null;
}

export interface SharedResponsesOptions {
  /** The session cookie's name. */
  sessionCookie: string;
  /** The role behind a session token, or null when it is no (longer a) valid session. */
  roleOf(token: string): Promise<string | null>;
  /** The data generation (lib/db/change-feed), or null while changes cannot be observed. */
  generation(): number | null;
  /** Paths that never need a session (the sign-in page…): always rendered. */
  isPublicPath(pathname: string): boolean;
  /** API paths whose GET answer is the same for every signed-in reader (others under /api/ are never kept). */
  isSharedRead(pathname: string): boolean;
  ttlMs: number;
  /** Responses kept at most (with maxResponseBytes, the memory bound: 64 × 1 MiB by default). */
  maxEntries?: number;
  /** Responses larger than this (uncompressed) are not kept. */
  maxResponseBytes?: number;
  now?: () => number;
}

/** The response header saying whether a response came from here. */
export const CACHE_HEADER = "x-driftwatch-cache";

// Headers of a captured response that describe that one transmission, not the page.
const PER_RESPONSE_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "etag", CACHE_HEADER]);

// Requests made by the Next.js router in the browser (RSC payloads, prefetches): not pages.
// Conditional requests: answered by the handler, which knows its validators.
const PASS_THROUGH_HEADERS = ["rsc", "next-router-prefetch", "next-router-state-tree", "next-router-segment-prefetch", "next-action", "if-none-match", "if-modified-since", "range"];

/**
 * What Next.js and React write into a streamed page that went wrong after its
 * 200 was sent: notFound()/forbidden() (NEXT_HTTP_ERROR_FALLBACK), redirect()
 * (NEXT_REDIRECT, the refresh meta), and errors caught by a boundary (digests,
 * React's client-side error switch). Such a page is never kept.
 */
const UNFINISHED_PAGE_MARKS = ["NEXT_HTTP_ERROR_FALLBACK", "NEXT_REDIRECT", "__next-page-redirect", "data-dgst", "$RX(", "data-rxi"];

/** The value of one cookie, or null when it is absent, sent twice, or malformed. */
export function singleCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  let found: string | null = null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    // Two cookies of one name: which one the page's own check reads is not ours to guess.
    if (found !== null) return null;
    try {
      found = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return found || null;
}

/** True when the client takes gzip (Accept-Encoding, with q-values). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (typeof header !== "string") return false;
  for (const item of header.split(",")) {
    const [coding, ...params] = item.split(";").map((s) => s.trim().toLowerCase());
    if (coding !== "gzip") continue;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * The request target, when it is one Next.js serves as it is: a single
 * leading slash, no backslashes, no dot segments (plain or %-encoded). Others
 * (`//host/x`, `/a/../b`) are left to Next.js, which redirects or rejects them.
 */
export function plainTarget(url: string | undefined): { pathname: string; search: string } | null {
  if (!url || !url.startsWith("/") || url.startsWith("//") || url.includes("\\")) return null;
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(pathname)) return null;
  return { pathname, search: q < 0 ? "" : url.slice(q) };
}

function nonceOf(csp: unknown): string | null {
  return typeof csp === "string" ? (/'nonce-([A-Za-z0-9+/_=-]+)'/.exec(csp)?.[1] ?? null) : null;
}

function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/** The body as text, or null when its encoding is unknown or it is larger than `limit` once decoded. */
function decode(body: Buffer, encoding: string | undefined, limit: number): Buffer | null {
  const opts = { maxOutputLength: limit };
  try {
    switch ((encoding ?? "identity").toLowerCase()) {
      case "identity":
        return body;
      case "gzip":
        return zlib.gunzipSync(body, opts);
      case "deflate":
        return zlib.inflateSync(body, opts);
      case "br":
        return zlib.brotliDecompressSync(body, opts);
      default:
        return null;
    }
  } catch {
    return null; // corrupt, or over the limit
  }
}

function splitAround(body: Buffer, separator: string): Buffer[] {
  const sep = Buffer.from(separator, "utf8");
  const pieces: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(sep, from); at >= 0; at = body.indexOf(sep, from)) {
    pieces.push(body.subarray(from, at));
    from = at + sep.length;
  }
  pieces.push(body.subarray(from));
  return pieces;
}

export class SharedResponses {
  private readonly entries: VersionedCache<SharedResponse | null>;
  private readonly maxBytes: number;

  constructor(private readonly opts: SharedResponsesOptions) {
    this.entries = new VersionedCache({ maxEntries: opts.maxEntries ?? 64, ttlMs: opts.ttlMs, now: opts.now });
    this.maxBytes = opts.maxResponseBytes ?? 1024 * 1024;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Answers `req` from a kept page, or lets `render` answer it (keeping what
   * it renders when it can). Rejects when `render` does.
   */
  async serve(req: IncomingMessage, res: ServerResponse, render: () => unknown): Promise<void> {
    const target = await this.keyOf(req);
    const generation = target === null ? null : this.opts.generation();
    if (target === null || generation === null) {
      await render();
      return;
    }
    const { key, kind } = target;
    let rendered: Promise<unknown> | null = null;
    const shared = this.entries.get(key, generation, () => {
      const capture = this.capture(res, kind);
      rendered = Promise.resolve().then(render);
      rendered.catch(() => capture.abandon());
      return capture.page;
    });
    const page = await shared;
    if (rendered) {
      // This request rendered it and has been answered; a render that cannot be kept is not remembered.
      if (!page) this.entries.delete(key, shared);
      await rendered;
      return;
    }
    if (!page) {
      // The render shared with another request could not be kept (a redirect, an error…): render our own.
      this.entries.delete(key, shared);
      await render();
      return;
    }
    await this.send(req, res, page);
  }

  /** The cache key for a page or shared read by a signed-in user, or null when the handler must answer. */
  private async keyOf(req: IncomingMessage): Promise<{ key: string; kind: Kind } | null> {
    if (req.method !== "GET") return null;
    if (PASS_THROUGH_HEADERS.some((h) => req.headers[h] !== undefined)) return null;
    const target = plainTarget(req.url);
    if (!target) return null;
    const { pathname, search } = target;
    if (pathname.startsWith("/_next/") || /[?&]_rsc=/.test(search) || this.opts.isPublicPath(pathname)) return null;
    const kind: Kind = pathname.startsWith("/api/") ? "read" : "page";
    if (kind === "read" && !this.opts.isSharedRead(pathname)) return null;
    const token = singleCookie(req.headers.cookie, this.opts.sessionCookie);
    if (!token) return null;
    let role: string | null;
    try {
      role = await this.opts.roleOf(token);
    } catch {
      return null; // the database is down: the page's own render says so
    }
    return role === null ? null : { key: `${role}\u0000${pathname}${search}`, kind };
  }

  /**
   * Copies what Next.js sends on `res`. `page` resolves when the response
   * ends (all bytes have passed through write/end, compressed or not; the
   * client may still be receiving them — other readers do not wait for that).
   */
  private capture(res: ServerResponse, kind: Kind): { page: Promise<SharedResponse | null>; abandon: () => void } {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooBig = false;
    let headHeaders: OutgoingHttpHeaders = {};
    let settle: (page: SharedResponse | null) => void = () => undefined;
    const page = new Promise<SharedResponse | null>((resolve) => {
      let settled = false;
      settle = (p) => {
        if (settled) return;
        settled = true;
        resolve(p);
      };
    });
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (tooBig || chunk === undefined || chunk === null || typeof chunk === "function") return;
      const buf = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk as Uint8Array);
      bytes += buf.length;
      if (bytes > this.maxBytes) {
        tooBig = true;
        chunks.length = 0;
      } else chunks.push(buf);
    };
    const finish = () => {
      if (tooBig) return settle(null);
      try {
        settle(this.keepable(kind, res.statusCode, { ...res.getHeaders(), ...lowerKeys(headHeaders) }, Buffer.concat(chunks)));
      } catch {
        settle(null);
      }
    };
    const write = res.write;
    const end = res.end;
    const writeHead = res.writeHead;
    res.write = function (this: ServerResponse, ...args: unknown[]) {
      collect(args[0], args[1]);
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof res.write;
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      collect(args[0], args[1]);
      const out = (end as (...a: unknown[]) => ServerResponse).apply(this, args);
      finish();
      return out;
    } as typeof res.end;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const last = args[args.length - 1];
      if (last && typeof last === "object" && !Array.isArray(last)) headHeaders = last as OutgoingHttpHeaders;
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    res.setHeader(CACHE_HEADER, "miss");
    res.once("close", () => settle(null)); // closed before it ended: the client went away
    return { page, abandon: () => settle(null) };
  }

  private keepable(kind: Kind, status: number, headers: OutgoingHttpHeaders, raw: Buffer): SharedResponse | null {
    if (status !== 200 || headers["set-cookie"] !== undefined) return null;
    const type = headers["content-type"];
    const isPage = kind === "page";
    if (typeof type !== "string" || !type.startsWith(isPage ? "text/html" : "application/json")) return null;
    // A page without a nonce was not rendered behind proxy.ts: nothing to keep it fresh with.
    const nonce = isPage ? nonceOf(headers["content-security-policy"]) : null;
    if (isPage && !nonce) return null;
    const encoding = headers["content-encoding"];
    const body = decode(raw, typeof encoding === "string" ? encoding : undefined, this.maxBytes);
    if (body === null || (isPage && UNFINISHED_PAGE_MARKS.some((mark) => body.includes(mark)))) return null;
    const kept: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && !PER_RESPONSE_HEADERS.has(name)) kept[name] = value;
    return { headers: kept, pieces: nonce ? splitAround(body, nonce) : [body], nonce };
  }

  private async send(req: IncomingMessage, res: ServerResponse, page: SharedResponse): Promise<void> {
    const old = page.nonce;
    const nonce = old === null ? "" : newNonce();
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(page.headers)) {
      headers[name] = old !== null && typeof value === "string" ? value.replaceAll(old, nonce) : value;
    }
    headers[CACHE_HEADER] = "hit";
    const separator = Buffer.from(nonce, "utf8");
    let body: Buffer = Buffer.concat(page.pieces.flatMap((p, i) => (i === 0 ? [p] : [separator, p])));
    if (acceptsGzip(req.headers["accept-encoding"])) {
      body = await new Promise<Buffer>((resolve, reject) => zlib.gzip(body, (e, out) => (e ? reject(e) : resolve(out))));
      headers["content-encoding"] = "gzip";
    }
    headers["content-length"] = body.length;
    res.writeHead(200, headers);
    res.end(body);
  }
}

function lowerKeys(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
