import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refuseUnservedMethod } from "./refuse-unserved-method.mjs";

let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (refuseUnservedMethod(req, res)) return;
    res.writeHead(200, { "content-type": "text/plain" }).end("reached the app");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(method: string): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: "/api/health" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, type: res.headers["content-type"] }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("methods Next.js cannot serve", () => {
  it("TRACE gets the API's 405 with a message and never reaches the app", async () => {
    const r = await send("TRACE");
    expect(r.status).toBe(405);
    expect(r.type).toBe("application/json");
    expect(JSON.parse(r.body)).toEqual({ error: { code: "method_not_allowed", message: "TRACE is not served here" } });
  });
  it("every other method reaches the app", async () => {
    for (const method of ["GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS"]) expect((await send(method)).status, method).toBe(200);
  });
});
