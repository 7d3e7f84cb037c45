// The Kubernetes API imitation in a process of its own, as a real API server
// would be: its memory and CPU are not billed to the collector being measured.
// Started by bench/support/cluster.ts; prints one JSON line with its
// addresses, then serves until SIGTERM.
import { startKubeSim, type KubeSimOptions } from "@driftwatch/kubesim";

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? "{}") as KubeSimOptions;
  const sim = await startKubeSim({ controllers: false, ...opts, adminPort: 0 });
  process.stdout.write(`${JSON.stringify({ url: sim.url, adminUrl: sim.adminUrl, kubeconfigPath: sim.kubeconfigPath, tokens: sim.tokens })}\n`);
  const stop = () => {
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // The parent going away must not leave a server behind.
  process.stdin.on("end", stop);
  process.stdin.resume();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
