// The request front over real sockets: forwarding headers from a client that
// is not a trusted proxy are thrown away (the socket's address and protocol
// count); from a trusted proxy they are believed, nearest hop first; HSTS goes
// out only when the request really came over https.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HSTS_VALUE, TrustedProxies, forwardedFacts, requestFront } from "./request-front";

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A server that runs the front, then answers with the headers a route would see. */
async function serve(trusted: string): Promise<string> {
  const front = requestFront({ trustedProxies: TrustedProxies.parse(trusted) });
  server = http.createServer((req, res) => {
    front(req, res);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ xff: req.headers["x-forwarded-for"], proto: req.headers["x-forwarded-proto"], host: req.headers["x-forwarded-host"] ?? null, realIp: req.headers["x-real-ip"] ?? null }));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function ask(url: string, headers: Record<string, string>): Promise<{ seen: { xff: string; proto: string; host: string | null; realIp: string | null }; hsts: string | null }> {
  const res = await fetch(url, { headers });
  return { seen: (await res.json()) as { xff: string; proto: string; host: string | null; realIp: string | null }, hsts: res.headers.get("strict-transport-security") };
}

const forged = { "x-forwarded-for": "203.0.113.9", "x-real-ip": "203.0.113.9", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };

describe("request front", () => {
  it("by default trusts no proxy: a client's own X-Forwarded-* headers are replaced by what the socket says, and no HSTS over plain http", async () => {
    const url = await serve("");
    const { seen, hsts } = await ask(url, forged);
    expect(seen).toEqual({ xff: "127.0.0.1", proto: "http", host: null, realIp: null });
    expect(hsts).toBeNull();
  });

  it("believes a trusted proxy: the nearest untrusted hop is the client, its https earns HSTS", async () => {
    const url = await serve("127.0.0.1, 10.0.0.0/8");
    const { seen, hsts } = await ask(url, { "x-forwarded-for": "198.51.100.7, 203.0.113.9, 10.1.2.3", "x-forwarded-proto": "https", "x-forwarded-host": "dw.example.com" });
    // 10.1.2.3 is a trusted proxy too; 203.0.113.9 is the first hop it did not vouch for (198.51.100.7 may be forged by that client).
    expect(seen).toEqual({ xff: "203.0.113.9", proto: "https", host: "dw.example.com", realIp: null });
    expect(hsts).toBe(HSTS_VALUE);
  });

  it("a proxy not in the list is just a client", async () => {
    const url = await serve("10.0.0.0/8");
    const { seen, hsts } = await ask(url, forged);
    expect(seen.xff).toBe("127.0.0.1");
    expect(hsts).toBeNull();
  });

  it("facts: IPv4-mapped peers, garbage hops and a proxy with no header", () => {
    const trusted = TrustedProxies.parse("::1,192.168.0.0/16");
    expect(forwardedFacts("::ffff:192.168.1.1", false, { "x-forwarded-for": "198.51.100.1" }, trusted).clientIp).toBe("198.51.100.1");
    expect(forwardedFacts("192.168.1.1", false, { "x-forwarded-for": "not-an-ip, 198.51.100.1" }, trusted).clientIp).toBe("198.51.100.1");
    expect(forwardedFacts("192.168.1.1", false, { "x-forwarded-for": "<script>" }, trusted).clientIp).toBe("192.168.1.1");
    expect(forwardedFacts("::1", true, {}, trusted)).toEqual({ clientIp: "::1", proto: "https", host: null });
    expect(() => TrustedProxies.parse("10.0.0.0/33")).toThrow(/prefix/);
    expect(() => TrustedProxies.parse("proxy.internal")).toThrow(/not an IP address/);
  });
});
