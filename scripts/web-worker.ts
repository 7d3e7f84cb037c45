// One web process of `npm start` when DRIFTWATCH_WEB_PROCESSES > 1, forked by
// lib/server/web.ts with the primary's environment (DATABASE_URL included):
// it only serves HTTP; the primary owns the database and the collector.
import { serveNext } from "@/lib/server/web";

serveNext({ dev: false, root: process.cwd() }).then(
  (server) => {
    const stop = () => {
      server.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGTERM", stop);
    // Ctrl-C reaches the whole process group; the primary decides when we stop.
    process.on("SIGINT", () => undefined);
  },
  (e: unknown) => {
    console.error("web process failed to start:", e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
