// One web process of `npm start`, forked by lib/server/web.ts with the
// primary's environment (DATABASE_URL, PORT and HOST included). It only
// serves HTTP; the primary owns the database and the collector.
//
// Plain JavaScript on purpose: the server code it runs is the compiled build
// in .next, and a TypeScript loader in this process (tsx) would only add
// module hooks and source-map work to every request.
import http from "node:http";
import next from "next";
import { refuseUnservedMethod } from "../lib/server/refuse-unserved-method.mjs";

const port = Number(process.env.PORT);
const hostname = process.env.HOST;

const app = next({ dev: false, dir: process.cwd(), hostname, port });
try {
  await app.prepare();
} catch (e) {
  console.error("web process failed to start:", e instanceof Error ? e.message : e);
  process.exit(1);
}
const handle = app.getRequestHandler();
// Set up by the build's instrumentation hook (lib/server/install-shared-responses.ts),
// which Next.js starts during prepare() without waiting for it: looked up per request.
const SHARED_RESPONSES = Symbol.for("driftwatch.sharedResponses");
// Set up by the same hook (lib/server/request-front.ts): forwarding headers believed only from trusted proxies.
const REQUEST_FRONT = Symbol.for("driftwatch.requestFront");
const FORWARDING_HEADERS = ["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-real-ip", "forwarded"];
const server = http.createServer((req, res) => {
  if (refuseUnservedMethod(req, res)) return;
  const front = globalThis[REQUEST_FRONT];
  if (front) front(req, res);
  // Not installed (yet): believe no forwarding header at all; Next.js fills them from the socket.
  else for (const h of FORWARDING_HEADERS) delete req.headers[h];
  const sharedResponses = globalThis[SHARED_RESPONSES];
  if (!sharedResponses) return void handle(req, res);
  sharedResponses.serve(req, res, () => handle(req, res)).catch((e) => {
    console.error("serving a request failed:", e instanceof Error ? e.message : e);
    if (res.headersSent) res.destroy();
    else res.writeHead(500).end();
  });
});
server.listen(port, hostname);

process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
// Ctrl-C reaches the whole process group; the primary decides when we stop.
process.on("SIGINT", () => undefined);
