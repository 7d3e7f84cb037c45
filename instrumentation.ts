// Next.js runs register() once in each server process at start-up, inside
// the build's module graph. It hands the web process (scripts/web-worker.mjs,
// plain JavaScript outside that graph) the request front (trusted proxies,
// HSTS) and the shared-response cache, wired to the same session lookup and
// change feed the pages and routes use.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NODE_ENV !== "production") return;
  const { installRequestFront } = await import("./lib/server/request-front");
  installRequestFront();
  const { installSharedResponses } = await import("./lib/server/install-shared-responses");
  installSharedResponses();
}
