// The bare list baseline in a process of its own: what any client pays at
// least to read the benchmark's objects (every page of every kind in every
// namespace, parsed), as the peak resident memory of a process that does only
// that. Started by bench/collect.ts; prints one JSON line.
//
//   bundled by bench/support/node-child.ts and run as: node --max-old-space-size=768 --enable-source-maps .build/bench/bare-list-child.mjs <kubeconfig> <namespaces>
import { createClusterClient } from "../../lib/kube/client";
import { discover } from "../../lib/kube/discovery";
import { bareListOf } from "./cluster";
import { highWaterRss, runIfMain } from "./stats";

async function main(): Promise<void> {
  const [kubeconfig, namespaces] = process.argv.slice(2);
  if (!kubeconfig || !namespaces) throw new Error("usage: bare-list-child.ts <kubeconfig> <namespaces>");
  const client = createClusterClient({ kubeconfig, context: "bench-readonly" }, { timeoutMs: 120_000 });
  const t = performance.now();
  const objects = await bareListOf(client, await discover(client), namespaces.split(","));
  console.log(JSON.stringify({ objects, ms: performance.now() - t, peakRss: highWaterRss() ?? process.memoryUsage.rss() }));
}

runIfMain(import.meta.url, main);
