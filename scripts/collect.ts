// npm run collect -- --once [--env NAME] [--json]
import { parseArgs } from "node:util";
import { embeddedPostgres } from "@driftwatch/embedded-postgres";
import { prepare } from "@/lib/server/prepare";
import { collectorContext, runOnce } from "@/lib/collector";
import { disconnectPrisma } from "@/lib/db";
import { sendLogsToStderr } from "@/lib/log";

// stdout is the answer (a report, or with --json one JSON document for `| jq`); logs are not part of it.
sendLogsToStderr();

const { values } = parseArgs({ options: { once: { type: "boolean", default: false }, env: { type: "string" }, json: { type: "boolean", default: false } } });
if (!values.once) {
  console.error("usage: npm run collect -- --once [--env NAME] [--json]   (for a long-running collector: npm run collector)");
  process.exit(2);
}

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : "—");

async function main(): Promise<number> {
  const prepared = await prepare({ log: values.json ? () => {} : (m) => console.error(m), embedded: embeddedPostgres });
  try {
    const results = await runOnce(collectorContext(prepared.db, prepared.config), values.env);
    if (values.json) {
      console.log(JSON.stringify(results, null, 2));
    } else {
      for (const r of results) {
        const o = r.outcome;
        console.log(`\n${r.environment}  run #${r.runId ?? "?"}  ${o?.status ?? "skipped: " + r.skipped}`);
        if (!o) continue;
        console.log(`  approved ${short(o.approvedSha)}   applied ${short(o.appliedSha)}`);
        if (o.stats) {
          console.log(`  objects: ${o.stats.desired} desired, ${o.stats.live} live   drift: ${o.stats.drift.Modified} modified, ${o.stats.drift.Missing} missing, ${o.stats.drift.Extra} extra (${o.stats.ignored} ignored)   ${o.stats.durationMs} ms`);
        }
        for (const e of o.errors) console.log(`  ${e.severity === "warning" ? "warning" : "error"} [${e.category}] ${e.path ? `${e.path}${e.line ? `:${e.line}` : ""}: ` : ""}${e.message}`);
      }
    }
    return results.every((r) => r.outcome?.status === "succeeded") ? 0 : 1;
  } finally {
    await disconnectPrisma();
    await prepared.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
