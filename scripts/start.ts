// `npm start` (production build) and `npm run dev` (--dev).
import { embeddedPostgres } from "@driftwatch/embedded-postgres";
import { bootServer, stopOnSignals } from "@/lib/server/boot";

const dev = process.argv.includes("--dev");
bootServer({ dev, embedded: embeddedPostgres }).then(
  (server) => {
    console.log(`Driftwatch is serving ${server.url}`);
    stopOnSignals(server);
  },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
