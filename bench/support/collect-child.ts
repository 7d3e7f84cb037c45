// One size of the collection benchmark in a process of its own (started by
// bench/collect.ts): a database of its own, the objects generated and seeded,
// the size's runs (by a collector process of its own, collector-child.ts,
// under the heap limit under test), one JSON line with the result.
//
//   node --import tsx bench/support/collect-child.ts '{"objects":50000,"steadyRuns":5,"collectorNodeFlags":["--max-old-space-size=768"]}'
import { benchSize, type SizeOptions } from "../collect";
import { startBenchDatabase } from "./db";
import { runIfMain } from "./stats";

async function main(): Promise<void> {
  const size = JSON.parse(process.argv[2] ?? "{}") as SizeOptions;
  if (!(size.objects > 0)) throw new Error("usage: collect-child.ts '{\"objects\":N,\"steadyRuns\":N}'");
  const database = await startBenchDatabase(`collect-${size.objects}`);
  try {
    console.log(JSON.stringify(await benchSize(database, size)));
  } finally {
    await database.stop();
  }
}

runIfMain(import.meta.url, main);
