// kubesim list throughput: 10,000 ConfigMaps listed in pages of 500 through
// the real @kubernetes/client-node, as a collector pages through a namespace.
//
//   npx tsx bench/kubesim-list.ts [--objects N] [--page N]
//
// Prints one JSON line: objects, pages, elapsedMs (listing only), objectsPerSecond,
// seedMs, and whether the target (< 2 s) was met.

import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startKubeSim } from "@driftwatch/kubesim";

export interface KubesimListBenchResult {
  objects: number;
  pageSize: number;
  pages: number;
  elapsedMs: number;
  objectsPerSecond: number;
  seedMs: number;
  loadAverage1m: number;
  target: { maxElapsedMs: number; met: boolean };
}

export async function main(opts: { objects?: number; pageSize?: number } = {}): Promise<KubesimListBenchResult> {
  const count = opts.objects ?? 10_000;
  const pageSize = opts.pageSize ?? 500;
  const sim = await startKubeSim({ adminPort: false, controllers: false });
  try {
    const seedStart = performance.now();
    sim.seed([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } }]);
    const batch: Array<Record<string, unknown>> = [];
    for (let i = 0; i < count; i++) {
      batch.push({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm-${String(i).padStart(5, "0")}`, namespace: "bench", labels: { app: "bench", shard: String(i % 10) } },
        data: { "config.yaml": `replicas: ${i % 7}\nmode: fast\nowner: team-${i % 13}\n`, index: String(i) },
      });
    }
    sim.seed(batch, { manager: "bench" });
    const seedMs = performance.now() - seedStart;

    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    // One warm-up request so TLS and connection setup are not billed to the listing.
    await core.listNamespacedConfigMap({ namespace: "bench", limit: 1 });

    const start = performance.now();
    let listed = 0;
    let pages = 0;
    let cont: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: "bench", limit: pageSize, _continue: cont });
      listed += page.items.length;
      pages += 1;
      cont = page.metadata?._continue;
    } while (cont);
    const elapsedMs = performance.now() - start;
    if (listed !== count) throw new Error(`listed ${listed} objects, expected ${count}`);
    return {
      objects: listed,
      pageSize,
      pages,
      elapsedMs: Math.round(elapsedMs),
      objectsPerSecond: Math.round((listed / elapsedMs) * 1000),
      seedMs: Math.round(seedMs),
      loadAverage1m: Number(loadavg()[0]?.toFixed(2) ?? 0),
      target: { maxElapsedMs: 2000, met: elapsedMs < 2000 },
    };
  } finally {
    await sim.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { objects: { type: "string" }, page: { type: "string" } } });
  main({ objects: values.objects ? Number(values.objects) : undefined, pageSize: values.page ? Number(values.page) : undefined }).then(
    (r) => {
      console.log(JSON.stringify(r));
      if (!r.target.met) process.exitCode = 1;
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
