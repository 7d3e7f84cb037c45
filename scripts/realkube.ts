// Runs a real etcd + kube-apiserver until stopped (Ctrl-C):
//   npm run realkube -- --kubeconfig <file> [--verbose]
// Builds the two binaries first when the cache does not have them.
import path from "node:path";
import { parseArgs } from "node:util";
import { ensureBinary } from "../tools/realkube/binaries";
import { startRealKube } from "../tools/realkube/cluster";

const USAGE = "Usage: npm run realkube -- --kubeconfig <file> [--verbose]";

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ options: { kubeconfig: { type: "string" }, verbose: { type: "boolean" }, help: { type: "boolean" } } }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help || !values.kubeconfig) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  for (const name of ["etcd", "kube-apiserver"] as const) ensureBinary(name, (line) => console.log(line));
  const kubeconfigPath = path.resolve(values.kubeconfig);
  const kube = await startRealKube({ kubeconfigPath, verbose: values.verbose ?? false });
  console.log(`realkube: kube-apiserver ready at ${kube.server} in ${(kube.startMillis / 1000).toFixed(1)} s`);
  console.log(`realkube: kubeconfig ${kubeconfigPath} (contexts: realkube = read-write, realkube-ro = read-only)`);
  console.log(`realkube: try  kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`realkube: ${signal}, stopping`);
    void kube.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
