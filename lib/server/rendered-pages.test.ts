import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_HEADER, RenderedPages, singleCookie, type RenderedPagesOptions } from "./rendered-pages";

// A real HTTP server in front of a page renderer that behaves like Next.js
// behind proxy.ts: a fresh nonce per render, in the CSP header and on every
// script, streamed in several chunks.

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
  res.setHeader("cache-control", "private, no-cache, no-store, max-age=0, must-revalidate");
  res.setHeader("content-security-policy", `default-src 'self'; script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
  res.write(`<!DOCTYPE html><html><head><script nonce="${nonce}" src="/_next/a.js"></script></head>`);
  res.write(`<body><h1>Environments at ${req.url}</h1>`);
  res.end(`<script nonce="${nonce}">self.__next_f.push([1,"{\\"nonce\\":\\"${nonce}\\"}"])</script></body></html>`);
};

const servers: Rig[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function rig(render: Renderer = nextLikePage, opts: Partial<RenderedPagesOptions> = {}): Promise<Rig> {
  let renders = 0;
  let generation: number | null = 1;
  let clock = 1_000_000;
  const sessions: Record<string, string> = { "viewer-token": "viewer", "other-viewer-token": "viewer", "admin-token": "admin" };
  const pages = new RenderedPages({
    sessionCookie: "driftwatch_session",
    roleOf: async (token) => sessions[token] ?? null,
    generation: () => generation,
    isPublicPath: (p) => p === "/signin",
    ttlMs: 3_000,
    now: () => clock,
    ...opts,
  });
  const server = http.createServer((req, res) => {
    void pages.serve(req, res, async () => {
      renders++;
      await render(req, res, randomBytes(16).toString("base64"));
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
    await get(`${s.url}/timeline?env=production`);
    await get(`${s.url}/timeline?env=staging`);
    await get(`${s.url}/timeline?env=production`, { cookie: "driftwatch_session=admin-token" });
    expect(s.renders()).toBe(3);
    const again = await get(`${s.url}/timeline?env=staging`);
    expect(again.cache).toBe("hit");
    expect(again.body).toContain("/timeline?env=staging");
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
      "/gone": (req, res, nonce) => {
        res.statusCode = 404; // Next.js's not-found page: HTML with the nonce, but a 404
        nextLikePage(req, res, nonce);
      },
      "/moved": (_req, res) => void res.writeHead(307, { location: "/signin" }).end(),
      "/cookie": (req, res, nonce) => {
        res.setHeader("set-cookie", "x=1");
        return nextLikePage(req, res, nonce);
      },
      "/json": (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end("{}"),
    };
    const s = await rig((req, res, nonce) => (byPath[new URL(req.url ?? "/", "http://x").pathname] ?? nextLikePage)(req, res, nonce));
    for (const p of Object.keys(byPath)) {
      await get(`${s.url}${p}`);
      expect((await get(`${s.url}${p}`)).cache, p).toBe("miss");
    }
    await get(`${s.url}/`, { cookie: "driftwatch_session=viewer-token", rsc: "1" });
    await get(`${s.url}/signin`);
    await get(`${s.url}/api/environments`);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    expect(s.renders()).toBe(Object.keys(byPath).length * 2 + 4);
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
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip", "content-security-policy": `script-src 'nonce-${nonce}'`, "content-length": gz.length });
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

  it("does not keep pages over the size limit", async () => {
    const s = await rig(nextLikePage, { maxPageBytes: 100 });
    await get(`${s.url}/`);
    expect((await get(`${s.url}/`)).cache).toBe("miss");
    expect(s.renders()).toBe(2);
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
