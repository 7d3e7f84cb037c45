// Route handlers behind a real HTTP server on a free loopback port, handed the
// request the way Next.js hands it to them: the Node.js request stream itself
// as the body, read only as the handler reads it (next/dist/server/web/
// spec-extension/adapters/next-request.js, fromNodeNextRequest: `body:
// request.body`, `duplex: "half"`). For tests that need real sockets (a body
// too large to hold) without building the whole app.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest, type NextResponse } from "next/server";

export type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<NextResponse | Response>;

export interface RouteServer {
  url: string;
  close(): Promise<void>;
}

export async function serveRoutes(routes: Record<string, Handler>): Promise<RouteServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const handler = routes[`${req.method} ${(req.url ?? "/").split("?")[0]}`];
      if (!handler) return void res.writeHead(404).end();
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new NextRequest(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        ...(hasBody ? { body: req, duplex: "half" } : {}),
      } as ConstructorParameters<typeof NextRequest>[1]);
      const response = await handler(request, { params: Promise.resolve({}) });
      const text = Buffer.from(await response.arrayBuffer());
      // An unread body is not drained: the answer goes out and the connection closes.
      res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "text/plain", "content-length": text.length, connection: "close" });
      res.end(text, () => req.destroy());
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
