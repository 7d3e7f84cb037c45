// Responses kept per process for a few seconds and served again to every
// signed-in reader of the same role: only those the application marked as
// shareable (lib/api/shareable.ts: an explicit list of pages, and the API
// reads built with sharedReadRoute), which say `Cache-Control: no-cache`.
// Anything marked `private` or `no-store` — every other page and API answer,
// and every error page Next.js renders — is passed on untouched and never kept.
//
// Why there is a cache here at all: each page carries a fresh CSP nonce on its
// scripts (proxy.ts), which forces Next.js to render it per request (4–12 ms
// of CPU), and an API read costs 1.5–3 ms in Next.js's routing and response
// path even with its answer cached (lib/dashboard/cached.ts). During an
// incident 50 people open the same environment and their browsers poll it; on
// two cores that queue alone puts the environments page at p95 ≈ 420 ms idle,
// seconds under load (bench/api.ts). One response serves them all.
//
// Why this is safe:
// - Only marked responses are kept, keyed by role and URL; a marked page
//   renders nothing about who asks (e2e/auth.spec.ts renders each one for
//   two users of one role and compares the bytes), a marked read never sees
//   the request or the user (sharedReadRoute).
// - Every hit checks the session first (the same cached lookup the proxy
//   does), so a signed-out or expired visitor never gets a response from here.
// - An entry dies with the next committed change to the data (the change
//   feed's generation, lib/db/change-feed) and after `ttlMs` regardless;
//   while the feed is down nothing is served from here.
// - Each page hit gets a new nonce in the body and in the CSP header. Markup
//   that could carry the old nonce was rendered before anyone could know it.
// - Only complete 200 answers without Set-Cookie are kept. Pages stream
//   behind app/loading.tsx, so a notFound(), a redirect or an error can come
//   after the 200 and its headers: the marks Next.js writes for those keep
//   such a page out (UNFINISHED_PAGE_MARKS). Client-side navigations (RSC
//   requests), prefetches, conditional requests, requests asking for a fresh
//   answer (Cache-Control: no-cache) and URLs Next.js would normalise pass
//   through untouched.
//
// Misses stream from Next.js exactly as before, copied on the way out.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { VersionedCache } from "@/lib/cache/versioned-cache";
import { isSharedPage, isStreamPath, requestWantsFresh, responseMayBeShared } from "@/lib/api/shareable";

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
  ttlMs: number;
  /** Responses kept at most (with maxResponseBytes, the memory bound: 64 × 1 MiB by default). */
  maxEntries?: number;
  /** Responses larger than this (uncompressed) are not kept. */
  maxResponseBytes?: number;
  now?: () => number;
}

/**
 * What is remembered for a URL whose answer says it may not be shared
 * (Cache-Control private or no-store): later requests go straight to the
 * handler instead of waiting for each other's render ("hit-for-pass").
 */
const NOT_SHAREABLE = "not-shareable";
type Kept = SharedResponse | typeof NOT_SHAREABLE | null;

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
  private readonly entries: VersionedCache<Kept>;
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
    if (!page || page === NOT_SHAREABLE) {
      // The render shared with another request could not be kept (a redirect, an error…), or this URL's answers never are: render our own.
      if (!page) this.entries.delete(key, shared);
      await render();
      return;
    }
    await this.send(req, res, page);
  }

  /**
   * The cache key for a GET by a signed-in user, or null when the handler must
   * answer. Whether the answer may be kept is for the answer to say (keepable).
   */
  private async keyOf(req: IncomingMessage): Promise<{ key: string; kind: Kind } | null> {
    if (req.method !== "GET") return null;
    if (PASS_THROUGH_HEADERS.some((h) => req.headers[h] !== undefined)) return null;
    if (requestWantsFresh(req.headers["cache-control"], req.headers.pragma)) return null;
    const target = plainTarget(req.url);
    if (!target) return null;
    const { pathname, search } = target;
    if (pathname.startsWith("/_next/") || /[?&]_rsc=/.test(search) || isStreamPath(pathname)) return null;
    const kind: Kind = pathname.startsWith("/api/") ? "read" : "page";
    if (kind === "page" && !isSharedPage(pathname)) return null;
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
  private capture(res: ServerResponse, kind: Kind): { page: Promise<Kept>; abandon: () => void } {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooBig = false;
    let headHeaders: OutgoingHttpHeaders = {};
    let settle: (page: Kept) => void = () => undefined;
    const page = new Promise<Kept>((resolve) => {
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

  private keepable(kind: Kind, status: number, headers: OutgoingHttpHeaders, raw: Buffer): Kept {
    if (status !== 200 || headers["set-cookie"] !== undefined) return null;
    if (!responseMayBeShared(headers["cache-control"])) return NOT_SHAREABLE;
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
