import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import net from "node:net";
import { acceptsGzip, CACHE_HEADER, plainTarget, SharedResponses, singleCookie, type SharedResponsesOptions } from "./shared-responses";
import { isSharedPage, requestWantsFresh, responseMayBeShared, SHAREABLE_CACHE_CONTROL } from "@/lib/api/shareable";

// A real HTTP server in front of a page renderer that behaves like Next.js
// behind proxy.ts: a fresh nonce per render, in the CSP header and on every
// script, streamed in several chunks; pages on the shared list say
// `Cache-Control: no-cache`, others Next.js's `private, no-store`.

interface Rig {
  url: string;
  renders: () => number;
  setGeneration: (g: number | null) => void;
  advance: (ms: number) => void;
  close: () => Promise<void>;
}

type Renderer = (req: http.IncomingMessage, res: http.ServerResponse, nonce: string) => void | Promise<void>;

const nextLikePage: Renderer = (req, res, nonce) => {
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.setHeader("cache-control", isSharedPage(new URL(req.url ?? "/", "http://x").pathname) ? SHAREABLE_CACHE_CONTROL : NEXT_DYNAMIC);
  res.setHeader("content-security-policy", `default-src 'self'; script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
  res.write(`<!DOCTYPE html><html><head><script nonce="${nonce}" src="/_next/a.js"></script></head>`);
  res.write(`<body><h1>Environments at ${req.url}</h1>`);
  res.end(`<script nonce="${nonce}">self.__next_f.push([1,"{\\"nonce\\":\\"${nonce}\\"}"])</script></body></html>`);
};

const NEXT_DYNAMIC = "private, no-cache, no-store, max-age=0, must-revalidate";

const servers: Rig[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function rig(render: Renderer = nextLikePage, opts: Partial<SharedResponsesOptions> = {}): Promise<Rig> {
  let renders = 0;
  let generation: number | null = 1;
  let clock = 1_000_000;
  const sessions: Record<string, string> = { "viewer-token": "viewer", "other-viewer-token": "viewer", "admin-token": "admin" };
  const pages = new SharedResponses({
    sessionCookie: "driftwatch_session",
    roleOf: async (token) => sessions[token] ?? null,
    generation: () => generation,
    ttlMs: 3_000,
    now: () => clock,
    ...opts,
  });
  const server = http.createServer((req, res) => {
    pages
      .serve(req, res, async () => {
        renders++;
        await render(req, res, randomBytes(16).toString("base64"));
      })
      .catch(() => {
        // as scripts/web-worker.mjs does
        if (res.headersSent) res.destroy();
        else res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const r: Rig = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    renders: () => renders,
    setGeneration: (g) => (generation = g),
    advance: (ms) => (clock += ms),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  servers.push(r);
  return r;
}

async function get(url: string, headers: Record<string, string> = { cookie: "driftwatch_session=viewer-token" }) {
  const res = await fetch(url, { headers, redirect: "manual" });
  const body = await res.text();
  const csp = res.headers.get("content-security-policy") ?? "";
  return { status: res.status, body, csp, nonce: /'nonce-([^']+)'/.exec(csp)?.[1] ?? null, cache: res.headers.get(CACHE_HEADER) };
}

const withoutNonce = (body: string, nonce: string | null) => body.replaceAll(nonce ?? "\u0000", "NONCE");

describe("rendered pages", () => {
  it("serves a signed-in reader the page rendered for another, with a nonce of its own everywhere", async () => {
    const s = await rig();
    const first = await get(`${s.url}/`);
    const second = await get(`${s.url}/`, { cookie: "driftwatch_session=other-viewer-token" });
    expect([first.cache, second.cache]).toEqual(["miss", "hit"]);
    expect(s.renders()).toBe(1);
    expect(second.nonce).not.toBe(first.nonce);
    expect(second.body).not.toContain(first.nonce);
    // Every place the renderer put its nonce (attributes, the RSC payload) now carries the new one.
    expect(second.body.split(second.nonce ?? "").length - 1).toBe(3);
    expect(withoutNonce(second.body, second.nonce)).toBe(withoutNonce(first.body, first.nonce));
  });

  it("renders for every visitor without a valid session, so the page's own redirect to sign-in happens", async () => {
    const s = await rig();
    await get(`${s.url}/`);
    for (const headers of [{} as Record<string, string>, { cookie: "driftwatch_session=forged" }, { cookie: "driftwatch_session=viewer-token; driftwatch_session=admin-token" }]) {
      const r = await get(`${s.url}/`, headers);
      expect(r.cache).toBeNull();
    }
    expect(s.renders()).toBe(4);
  });

  it("keeps one page per role and per URL, query included", async () => {
    const s = await rig();
    await get(`${s.url}/environments/production?type=Modified`);
    await get(`${s.url}/environments/production?type=Missing`);
    await get(`${s.url}/environments/production?type=Modified`, { cookie: "driftwatch_session=admin-token" });
    expect(s.renders()).toBe(3);
    const again = await get(`${s.url}/environments/production?type=Missing`);
    expect(again.cache).toBe("hit");
    expect(again.body).toContain("/environments/production?type=Missing");
  });

  it("keeps only pages on the shared list that say they may be shared; others reach the handler every time", async () => {
    // /timeline is not on the list; /environments/x is, but this render says private (as any page proxy.ts did not mark).
    const s = await rig((req, res, nonce) => {
      if (req.url === "/environments/x") {
        const setHeader = res.setHeader.bind(res);
        res.setHeader = (name, value) => setHeader(name, name === "cache-control" ? NEXT_DYNAMIC : value);
      }
      nextLikePage(req, res, nonce);
    });
    for (let i = 0; i < 3; i++) expect((await get(`${s.url}/timeline`)).cache).toBeNull();
    expect(s.renders()).toBe(3);
    // The first private answer is captured and found not shareable; from then on the URL is not captured at all.
    expect((await get(`${s.url}/environments/x`)).cache).toBe("miss");
    expect((await get(`${s.url}/environments/x`, { cookie: "driftwatch_session=other-viewer-token" })).cache).toBeNull();
    expect(s.renders()).toBe(5);
  });

  it("renders for a request that asks for a fresh answer, and does not keep it", async () => {
    const s = await rig();
    const ask = (extra: Record<string, string>) => get(`${s.url}/`, { cookie: "driftwatch_session=viewer-token", ...extra });
    expect((await ask({ "cache-control": "no-cache" })).cache).toBeNull();
    expect((await ask({ pragma: "no-cache" })).cache).toBeNull();
    expect((await ask({ "cache-control": "max-age=0, no-store" })).cache).toBeNull();
    expect((await ask({})).cache).toBe("miss");
    expect((await ask({ "cache-control": "max-age=0" })).cache).toBe("hit");
    expect(s.renders()).toBe(4);
  });

  it("renders afresh once the data changed, after the time limit, and always while changes cannot be observed", async () => {
    const s = await rig();
    await get(`${s.url}/`);
    s.setGeneration(2);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    expect((await get(`${s.url}/`)).cache).toBe("hit");
    s.advance(3_001);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    s.setGeneration(null);
    expect((await get(`${s.url}/`)).cache).toBeNull();
    expect((await get(`${s.url}/`)).cache).toBeNull();
    expect(s.renders()).toBe(5);
  });

  it("never keeps redirects, errors, pages that set cookies, or router requests", async () => {
    const byPath: Record<string, Renderer> = {
      "/environments/gone": (req, res, nonce) => {
        res.statusCode = 404; // Next.js's not-found page: HTML with the nonce, but a 404
        nextLikePage(req, res, nonce);
      },
      "/environments/moved": (_req, res) => void res.writeHead(307, { location: "/signin" }).end(),
      "/environments/cookie": (req, res, nonce) => {
        res.setHeader("set-cookie", "x=1");
        return nextLikePage(req, res, nonce);
      },
      "/environments/json": (_req, res) => void res.writeHead(200, { "content-type": "application/json", "cache-control": SHAREABLE_CACHE_CONTROL }).end("{}"),
    };
    const s = await rig((req, res, nonce) => (byPath[new URL(req.url ?? "/", "http://x").pathname] ?? nextLikePage)(req, res, nonce));
    for (const p of Object.keys(byPath)) {
      await get(`${s.url}${p}`);
      expect((await get(`${s.url}${p}`)).cache, p).toBe("miss");
    }
    await get(`${s.url}/`, { cookie: "driftwatch_session=viewer-token", rsc: "1" });
    await get(`${s.url}/signin`);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    expect(s.renders()).toBe(Object.keys(byPath).length * 2 + 3);
  });

  it("never keeps a page that streamed a 404, a redirect or an error after its 200", async () => {
    // Pages stream behind app/loading.tsx: notFound() and thrown errors arrive after the status line.
    const marks = ['<script>self.__next_f.push([1,"NEXT_HTTP_ERROR_FALLBACK;404"])</script>', '<meta id="__next-page-redirect" http-equiv="refresh" content="1;url=/signin"/>', '<template data-dgst="2863110"></template>', '<script>$RX("B:0","1234")</script>'];
    const s = await rig((req, res, nonce) => {
      const i = Number(new URL(req.url ?? "/", "http://x").searchParams.get("i"));
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.setHeader("cache-control", SHAREABLE_CACHE_CONTROL);
      res.setHeader("content-security-policy", `script-src 'nonce-${nonce}'`);
      res.write(`<html><script nonce="${nonce}"></script><p>Loading…</p>`);
      res.end(`${marks[i]}</html>`);
    });
    for (let i = 0; i < marks.length; i++) {
      expect((await get(`${s.url}/environments/nope?i=${i}`)).status).toBe(200);
      expect((await get(`${s.url}/environments/nope?i=${i}`)).cache).toBe("miss");
    }
    expect(s.renders()).toBe(marks.length * 2);
  });

  it("does not make other readers wait while the first reader's connection is slow", async () => {
    const big = "x".repeat(8 * 1024 * 1024); // more than the socket buffers hold
    const s = await rig(
      (_req, res, nonce) => {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.setHeader("cache-control", SHAREABLE_CACHE_CONTROL);
        res.setHeader("content-security-policy", `script-src 'nonce-${nonce}'`);
        res.write(`<html><script nonce="${nonce}"></script>`);
        res.end(`<p>${big}</p></html>`);
      },
      { maxResponseBytes: 32 * 1024 * 1024 },
    );
    const stalled = net.connect(Number(new URL(s.url).port), "127.0.0.1");
    stalled.pause(); // reads nothing
    stalled.write("GET / HTTP/1.1\r\nhost: x\r\ncookie: driftwatch_session=viewer-token\r\n\r\n");
    try {
      await expect.poll(() => s.renders(), { timeout: 5_000 }).toBe(1);
      const second = await get(`${s.url}/`);
      expect(second.cache).toBe("hit");
      expect(s.renders()).toBe(1);
    } finally {
      stalled.destroy();
    }
  });

  it("passes a failed render on to the server, and the readers waiting for it render their own", async () => {
    let calls = 0;
    const s = await rig(async (req, res, nonce) => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      if (calls === 1) throw new Error("render crashed");
      nextLikePage(req, res, nonce);
    });
    const [a, b] = await Promise.all([get(`${s.url}/`), get(`${s.url}/`)]);
    expect([a.status, b.status].sort()).toEqual([200, 500]);
    expect(s.renders()).toBe(2);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    expect((await get(`${s.url}/`)).cache).toBe("hit");
  });

  it("shares API answers marked shareable as they are, and no other API answer", async () => {
    let status = 200;
    const s = await rig((req, res) => {
      // As lib/api/route.ts answers: sharedReadRoute's 200s say no-cache, everything else no-store.
      const shareable = req.url === "/api/environments" && status === 200;
      res.writeHead(status, { "content-type": "application/json", "cache-control": shareable ? SHAREABLE_CACHE_CONTROL : "no-store" });
      res.end(JSON.stringify({ path: req.url, environments: [{ name: "production", status: "Drifted" }] }));
    });
    const first = await get(`${s.url}/api/environments`);
    const second = await get(`${s.url}/api/environments`, { cookie: "driftwatch_session=other-viewer-token" });
    expect([first.cache, second.cache]).toEqual(["miss", "hit"]);
    expect(JSON.parse(second.body)).toEqual({ path: "/api/environments", environments: [{ name: "production", status: "Drifted" }] });
    // Conditional requests always reach the handler; so does an answer that says no-store, every time after the first.
    expect((await get(`${s.url}/api/environments`, { cookie: "driftwatch_session=viewer-token", "if-none-match": '"x"' })).cache).toBeNull();
    await get(`${s.url}/api/auth/session`);
    expect((await get(`${s.url}/api/auth/session`)).cache).toBeNull();
    expect(s.renders()).toBe(4);
    // An answer that is not a 200 is not kept.
    s.advance(3_001);
    status = 503;
    await get(`${s.url}/api/environments`);
    expect((await get(`${s.url}/api/environments`)).cache).toBe("miss");
  });

  it("lets concurrent first readers share one render", async () => {
    const s = await rig(async (req, res, nonce) => {
      await new Promise((r) => setTimeout(r, 100));
      nextLikePage(req, res, nonce);
    });
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(`${s.url}/`)));
    expect(s.renders()).toBe(1);
    expect(answers.filter((a) => a.cache === "hit")).toHaveLength(19);
    expect(new Set(answers.map((a) => a.nonce)).size).toBe(20);
  });

  it("falls back to a render of its own when the shared render cannot be kept", async () => {
    let calls = 0;
    const s = await rig(async (req, res, nonce) => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      if (calls === 1) res.statusCode = 500;
      nextLikePage(req, res, nonce);
    });
    const [a, b] = await Promise.all([get(`${s.url}/`), get(`${s.url}/`)]);
    expect([a.status, b.status].sort()).toEqual([200, 500]);
    expect(s.renders()).toBe(2);
  });

  it("keeps a compressed render as text and compresses hits for clients that accept gzip", async () => {
    const s = await rig((req, res, nonce) => {
      const html = `<html><script nonce="${nonce}"></script><p>${"drift ".repeat(500)}</p></html>`;
      const gz = zlib.gzipSync(html);
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip", "cache-control": SHAREABLE_CACHE_CONTROL, "content-security-policy": `script-src 'nonce-${nonce}'`, "content-length": gz.length });
      res.end(gz);
    });
    await get(`${s.url}/`);
    const plain = await new Promise<{ encoding?: string; body: string }>((resolve) =>
      http.get(`${s.url}/`, { headers: { cookie: "driftwatch_session=viewer-token" } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body }));
      }),
    );
    expect(plain.encoding).toBeUndefined();
    expect(plain.body).toContain("drift drift");
    const zipped = await get(`${s.url}/`, { cookie: "driftwatch_session=viewer-token", "accept-encoding": "gzip" });
    expect(zipped.cache).toBe("hit");
    expect(zipped.body).toContain("drift drift");
    expect(s.renders()).toBe(1);
  });

  it("does not keep pages over the size limit, compressed ones measured uncompressed", async () => {
    const s = await rig(nextLikePage, { maxResponseBytes: 100 });
    await get(`${s.url}/`);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    const zipped = await rig(
      (_req, res, nonce) => {
        const gz = zlib.gzipSync(`<html><script nonce="${nonce}"></script>${" ".repeat(4096)}</html>`);
        res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip", "cache-control": SHAREABLE_CACHE_CONTROL, "content-security-policy": `script-src 'nonce-${nonce}'` });
        res.end(gz);
      },
      { maxResponseBytes: 1024 },
    );
    await get(`${zipped.url}/`);
    expect((await get(`${zipped.url}/`)).cache).toBe("miss");
  });
});

describe("Cache-Control", () => {
  it("a response may be shared only when it says so and says neither private nor no-store", () => {
    expect(responseMayBeShared(SHAREABLE_CACHE_CONTROL)).toBe(true);
    expect(responseMayBeShared("public, max-age=3")).toBe(true);
    for (const v of [NEXT_DYNAMIC, "no-store", "Private", "no-cache, NO-STORE", "private=\"set-cookie\"", "", undefined, null]) expect(responseMayBeShared(v), String(v)).toBe(false);
    expect(responseMayBeShared(["no-cache", "private"])).toBe(false);
  });

  it("a request asks for a fresh answer with no-cache or no-store, or Pragma: no-cache", () => {
    expect(requestWantsFresh("no-cache", undefined)).toBe(true);
    expect(requestWantsFresh("max-age=0, No-Store", undefined)).toBe(true);
    expect(requestWantsFresh(undefined, "no-cache")).toBe(true);
    expect(requestWantsFresh("max-age=0", undefined)).toBe(false);
    expect(requestWantsFresh(undefined, undefined)).toBe(false);
  });

  it("the shared pages are the environments and an environment, and nothing else", () => {
    for (const p of ["/", "/environments/production"]) expect(isSharedPage(p), p).toBe(true);
    for (const p of ["/lineage", "/signin", "/timeline", "/audit", "/metrics", "/compare", "/commits/abc", "/environments", "/environments/production/objects/apps/Deployment/shop/api", "/lineage/x", "//"]) expect(isSharedPage(p), p).toBe(false);
  });
});

describe("acceptsGzip", () => {
  it("reads Accept-Encoding with q-values", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("br;q=1.0, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("gzip; q=0")).toBe(false);
    expect(acceptsGzip("gzip;q=0.000")).toBe(false);
    expect(acceptsGzip("x-gzip, br")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe("plainTarget", () => {
  it("takes only targets Next.js serves as they are", () => {
    expect(plainTarget("/timeline?env=production")).toEqual({ pathname: "/timeline", search: "?env=production" });
    expect(plainTarget("/environments/prod/objects/_/ConfigMap/shop/app.config")?.pathname).toBe("/environments/prod/objects/_/ConfigMap/shop/app.config");
    for (const bad of ["//evil/lineage", "/environments/../lineage", "/a/%2e%2e/lineage", "/a/%2E/b", "/\\evil", "http://x/", "", undefined]) expect(plainTarget(bad), String(bad)).toBeNull();
  });
});

describe("singleCookie", () => {
  it("reads one cookie and refuses duplicates and bad encodings", () => {
    expect(singleCookie("a=1; driftwatch_session=abc; b=2", "driftwatch_session")).toBe("abc");
    expect(singleCookie("driftwatch_session=a; driftwatch_session=b", "driftwatch_session")).toBeNull();
    expect(singleCookie("driftwatch_session=%E0%A4%A", "driftwatch_session")).toBeNull();
    expect(singleCookie("xdriftwatch_session=abc", "driftwatch_session")).toBeNull();
    expect(singleCookie(undefined, "driftwatch_session")).toBeNull();
  });
});
