// Rendered pages, kept per process for a few seconds and served again to
// every signed-in reader of the same role: what Next.js's own full-route
// cache (ISR) would do for us if our pages could be static. They cannot: each
// response carries a fresh CSP nonce on its scripts (proxy.ts), which forces a
// render per request — 4–8 ms of CPU for React alone. During an incident 50
// people open the same environments page; one render serves them all.
//
// Why this is safe:
// - Pages render nothing personal. Who is signed in, their role's buttons and
//   the CSRF token come from /api/auth/session in the browser; the HTML is
//   the same for every user, and entries are keyed by role besides the URL in
//   case a page ever shows one role more than another.
// - Every hit checks the session first (the same cached lookup the proxy
//   does), so a signed-out or expired visitor never gets a page from here.
// - An entry dies with the next committed change to the data (the change
//   feed's generation, lib/db/change-feed) and after `ttlMs` regardless;
//   while the feed is down nothing is served from here.
// - Each hit gets a new nonce: the old one is replaced everywhere in the body
//   and in the CSP header. Markup that could carry the old nonce was rendered
//   before anyone could know it.
// - Only plain 200 HTML responses without Set-Cookie are kept; redirects,
//   404s, errors, client-side navigations (RSC requests) and prefetches pass
//   through untouched.
//
// Misses stream from Next.js exactly as before, teed into the cache.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { VersionedCache } from "@/lib/cache/versioned-cache";

export interface RenderedPage {
  headers: OutgoingHttpHeaders;
  body: string;
  /** The nonce the page was rendered with, to be replaced on every hit. */
  nonce: string;
}

export interface RenderedPagesOptions {
  /** The session cookie's name. */
  sessionCookie: string;
  /** The role behind a session token, or null when it is no (longer a) valid session. */
  roleOf(token: string): Promise<string | null>;
  /** The data generation (lib/db/change-feed), or null while changes cannot be observed. */
  generation(): number | null;
  /** Paths that never need a session (the sign-in page…): always rendered. */
  isPublicPath(pathname: string): boolean;
  ttlMs: number;
  maxEntries?: number;
  /** Pages larger than this are not kept. */
  maxPageBytes?: number;
  now?: () => number;
}

/** The response header saying whether a page came from here. */
export const CACHE_HEADER = "x-driftwatch-cache";

// Headers of a captured response that describe that one transmission, not the page.
const PER_RESPONSE_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "etag", CACHE_HEADER]);

// Requests made by the Next.js router in the browser (RSC payloads, prefetches): not pages.
const ROUTER_HEADERS = ["rsc", "next-router-prefetch", "next-router-state-tree", "next-router-segment-prefetch", "next-action"];

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

function nonceOf(csp: unknown): string | null {
  return typeof csp === "string" ? (/'nonce-([A-Za-z0-9+/_=-]+)'/.exec(csp)?.[1] ?? null) : null;
}

function newNonce(): string {
  return randomBytes(16).toString("base64");
}

function decode(body: Buffer, encoding: string | undefined): string | null {
  switch ((encoding ?? "identity").toLowerCase()) {
    case "identity":
      return body.toString("utf8");
    case "gzip":
      return zlib.gunzipSync(body).toString("utf8");
    case "deflate":
      return zlib.inflateSync(body).toString("utf8");
    case "br":
      return zlib.brotliDecompressSync(body).toString("utf8");
    default:
      return null;
  }
}

function acceptsGzip(req: IncomingMessage): boolean {
  const accept = req.headers["accept-encoding"];
  return typeof accept === "string" && /\bgzip\b(?!;q=0(\.0*)?(,|$))/i.test(accept);
}

export class RenderedPages {
  private readonly pages: VersionedCache<RenderedPage | null>;
  private readonly maxPageBytes: number;

  constructor(private readonly opts: RenderedPagesOptions) {
    this.pages = new VersionedCache({ maxEntries: opts.maxEntries ?? 200, ttlMs: opts.ttlMs, now: opts.now });
    this.maxPageBytes = opts.maxPageBytes ?? 2 * 1024 * 1024;
  }

  get size(): number {
    return this.pages.size;
  }

  /** Answers `req` from a kept page, or lets `render` answer it (keeping what it renders when it can). */
  async serve(req: IncomingMessage, res: ServerResponse, render: () => unknown): Promise<void> {
    const key = await this.keyOf(req);
    const generation = key === null ? null : this.opts.generation();
    if (key === null || generation === null) {
      await render();
      return;
    }
    let rendering: Promise<RenderedPage | null> | null = null;
    const page = await this.pages.get(key, generation, () => (rendering = this.renderAndCapture(res, render)));
    if (rendering) {
      // This request rendered it and has been answered; a render that cannot be kept is not remembered.
      if (!page) this.pages.delete(key);
      return;
    }
    if (!page) {
      // The render shared with another request could not be kept (a redirect, an error…): render our own.
      this.pages.delete(key);
      await render();
      return;
    }
    await this.send(req, res, page);
  }

  /** The cache key for a page request by a signed-in user, or null when it must be rendered. */
  private async keyOf(req: IncomingMessage): Promise<string | null> {
    if (req.method !== "GET" || !req.url) return null;
    if (ROUTER_HEADERS.some((h) => req.headers[h] !== undefined)) return null;
    let url: URL;
    try {
      url = new URL(req.url, "http://page.invalid");
    } catch {
      return null;
    }
    const { pathname } = url;
    if (pathname.startsWith("/api/") || pathname.startsWith("/_next/") || url.searchParams.has("_rsc") || this.opts.isPublicPath(pathname)) return null;
    const token = singleCookie(req.headers.cookie, this.opts.sessionCookie);
    if (!token) return null;
    let role: string | null;
    try {
      role = await this.opts.roleOf(token);
    } catch {
      return null; // the database is down: the page's own render says so
    }
    return role === null ? null : `${role}\u0000${url.pathname}${url.search}`;
  }

  /** Lets Next.js answer, copying what it sends; resolves to the page when it can be kept. */
  private renderAndCapture(res: ServerResponse, render: () => unknown): Promise<RenderedPage | null> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooBig = false;
    let headHeaders: OutgoingHttpHeaders = {};
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (tooBig || chunk === undefined || chunk === null || typeof chunk === "function") return;
      const buf = typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : Buffer.from(chunk as Uint8Array);
      bytes += buf.length;
      if (bytes > this.maxPageBytes) {
        tooBig = true;
        chunks.length = 0;
      } else chunks.push(buf);
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
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.end;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const last = args[args.length - 1];
      if (last && typeof last === "object" && !Array.isArray(last)) headHeaders = last as OutgoingHttpHeaders;
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;

    res.setHeader(CACHE_HEADER, "miss");
    return new Promise<RenderedPage | null>((resolve) => {
      res.once("finish", () => {
        try {
          resolve(tooBig ? null : this.keepable(res.statusCode, { ...res.getHeaders(), ...lowerKeys(headHeaders) }, Buffer.concat(chunks)));
        } catch {
          resolve(null);
        }
      });
      res.once("close", () => resolve(null)); // after finish this changes nothing
      Promise.resolve()
        .then(render)
        .catch(() => resolve(null));
    });
  }

  private keepable(status: number, headers: OutgoingHttpHeaders, raw: Buffer): RenderedPage | null {
    if (status !== 200 || headers["set-cookie"] !== undefined) return null;
    const type = headers["content-type"];
    if (typeof type !== "string" || !type.startsWith("text/html")) return null;
    const nonce = nonceOf(headers["content-security-policy"]);
    if (!nonce) return null;
    const encoding = headers["content-encoding"];
    const body = decode(raw, typeof encoding === "string" ? encoding : undefined);
    if (body === null) return null;
    const kept: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && !PER_RESPONSE_HEADERS.has(name)) kept[name] = value;
    return { headers: kept, body, nonce };
  }

  private async send(req: IncomingMessage, res: ServerResponse, page: RenderedPage): Promise<void> {
    const nonce = newNonce();
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(page.headers)) {
      headers[name] = typeof value === "string" ? value.replaceAll(page.nonce, nonce) : value;
    }
    headers[CACHE_HEADER] = "hit";
    let body: Buffer = Buffer.from(page.body.replaceAll(page.nonce, nonce), "utf8");
    if (acceptsGzip(req)) {
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
