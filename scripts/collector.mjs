// npm run collector: a long-running collector worker (scripts/collector-main.ts),
// bundled and run under plain node with a bounded heap (scripts/collector-bundle.mjs).
import { runCollector } from "./collector-bundle.mjs";

runCollector().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
