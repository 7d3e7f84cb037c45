// The first thing every HTTP request meets, before Next.js: who the client
// is, and whether it came over https. Forwarding headers (X-Forwarded-For,
// -Proto, -Host, X-Real-IP) are believed only from the proxies named in
// DRIFTWATCH_TRUSTED_PROXIES (none by default); from anyone else they are
// replaced by what the socket says. Everything after this (sign-in throttling,
// audit records, Secure cookies, the same-origin check) can then read
// X-Forwarded-For and X-Forwarded-Proto as facts. Node.js's own request
// handler (Next.js) only fills those headers when they are missing, which is
// why a client's own values must be gone before it runs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { BlockList, isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import { env } from "@/lib/env";

/** One year: browsers keep to https for that long after seeing it once. */
export const HSTS_VALUE = "max-age=31536000";

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** `entries`: addresses or CIDR ranges (IPv4 or IPv6). Throws on anything else. */
  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim();
      const [address, bits] = entry.split("/") as [string, string | undefined];
      const family = isIP(address);
      if (family === 0) throw new Error(`DRIFTWATCH_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
      const type = family === 4 ? "ipv4" : "ipv6";
      if (bits === undefined) this.list.addAddress(address, type);
      else {
        const prefix = Number(bits);
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`DRIFTWATCH_TRUSTED_PROXIES: "${entry}" has a bad prefix length`);
        this.list.addSubnet(address, prefix, type);
      }
    }
    this.empty = entries.length === 0;
  }

  static parse(value: string | undefined): TrustedProxies {
    return new TrustedProxies((value ?? "").split(",").map((s) => s.trim()).filter(Boolean));
  }

  has(address: string): boolean {
    if (this.empty) return false;
    // IPv4 clients on a dual-stack socket appear as ::ffff:a.b.c.d.
    const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 4 ? "ipv4" : "ipv6");
  }
}

export interface ForwardedFacts {
  clientIp: string;
  proto: "http" | "https";
  /** The host the client asked for, when a trusted proxy says so. */
  host: string | null;
}

function first(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value.join(",") : value) ?? undefined;
}

/**
 * Walks X-Forwarded-For from the right (nearest hop first) while the hop is a
 * trusted proxy; the first untrusted hop is the client. From an untrusted
 * peer nothing in the headers counts.
 */
export function forwardedFacts(peer: string, encrypted: boolean, headers: IncomingMessage["headers"], trusted: TrustedProxies): ForwardedFacts {
  const own: ForwardedFacts = { clientIp: peer, proto: encrypted ? "https" : "http", host: null };
  if (!trusted.has(peer)) return own;
  const hops = (first(headers["x-forwarded-for"]) ?? "").split(",").map((h) => h.trim()).filter(Boolean);
  let clientIp = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (isIP(hop) === 0) break;
    clientIp = hop;
    if (!trusted.has(hop)) break;
  }
  const proto = first(headers["x-forwarded-proto"])?.split(",")[0]?.trim().toLowerCase();
  const host = first(headers["x-forwarded-host"])?.split(",")[0]?.trim() || null;
  return { clientIp, proto: proto === "https" ? "https" : proto === "http" ? "http" : own.proto, host };
}

const FORWARDING_HEADERS = ["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-real-ip", "forwarded"];

export interface RequestFrontOptions {
  trustedProxies: TrustedProxies;
}

/** Rewrites the forwarding headers to the facts, and asks browsers to stay on https once they came over it. */
export function requestFront(opts: RequestFrontOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const socket = req.socket as Partial<TLSSocket>;
    const facts = forwardedFacts(req.socket.remoteAddress ?? "unknown", socket.encrypted === true, req.headers, opts.trustedProxies);
    for (const h of FORWARDING_HEADERS) delete req.headers[h];
    req.headers["x-forwarded-for"] = facts.clientIp;
    req.headers["x-forwarded-proto"] = facts.proto;
    if (facts.host) req.headers["x-forwarded-host"] = facts.host;
    if (facts.proto === "https") res.setHeader("strict-transport-security", HSTS_VALUE);
  };
}

/** Where the web processes (scripts/web-worker.mjs, outside the build's module graph) find it. */
export const REQUEST_FRONT_KEY = Symbol.for("driftwatch.requestFront");

/** The front for this process, from DRIFTWATCH_TRUSTED_PROXIES. */
export function requestFrontFromEnv(): (req: IncomingMessage, res: ServerResponse) => void {
  return requestFront({ trustedProxies: TrustedProxies.parse(env().DRIFTWATCH_TRUSTED_PROXIES) });
}

export function installRequestFront(): void {
  (globalThis as Record<symbol, unknown>)[REQUEST_FRONT_KEY] = requestFrontFromEnv();
}
