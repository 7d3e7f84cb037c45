// Methods the Fetch API cannot represent (TRACE, TRACK, CONNECT): Next.js
// fails while building its Request for them and answers 500. They are
// answered here, before Next.js, with the API's 405 (`method_not_allowed` in
// lib/api/errors.ts). Plain JavaScript: the web processes
// (scripts/web-worker.mjs) run without a TypeScript loader.
const UNSERVED = new Set(["TRACE", "TRACK", "CONNECT"]);

/** True when the request was answered (with 405) and must not reach Next.js. */
export function refuseUnservedMethod(req, res) {
  if (!UNSERVED.has((req.method ?? "").toUpperCase())) return false;
  const body = JSON.stringify({ error: { code: "method_not_allowed", message: `${req.method} is not served here` } });
  res.writeHead(405, { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff", allow: "GET, HEAD, POST, PATCH, OPTIONS" });
  res.end(body);
  return true;
}
