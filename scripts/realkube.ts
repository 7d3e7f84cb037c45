// Runs a real etcd + kube-apiserver until stopped (Ctrl-C), with --flux also
// Flux's source-, kustomize- and helm-controller beside it:
//   npm run realkube -- --kubeconfig <file> [--flux] [--verbose]
// Builds the binaries first when the cache does not have them.
import path from "node:path";
import { parseArgs } from "node:util";
import { ensureBinary } from "../tools/realkube/binaries";
import { startRealKube } from "../tools/realkube/cluster";
import { startFlux, type RealFlux } from "../tools/realkube/flux";

const USAGE = "Usage: npm run realkube -- --kubeconfig <file> [--flux] [--verbose]";

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ options: { kubeconfig: { type: "string" }, flux: { type: "boolean" }, verbose: { type: "boolean" }, help: { type: "boolean" } } }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help || !values.kubeconfig) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const fluxControllers = ["source-controller", "kustomize-controller", "helm-controller"] as const;
  for (const name of ["etcd", "kube-apiserver", ...(values.flux ? fluxControllers : [])] as const) ensureBinary(name, (line) => console.log(line));
  const kubeconfigPath = path.resolve(values.kubeconfig);
  const kube = await startRealKube({ kubeconfigPath, verbose: values.verbose ?? false });
  console.log(`realkube: kube-apiserver ready at ${kube.server} in ${(kube.startMillis / 1000).toFixed(1)} s`);
  console.log(`realkube: kubeconfig ${kubeconfigPath} (contexts: realkube = read-write, realkube-ro = read-only)`);
  let flux: RealFlux | undefined;
  if (values.flux) {
    try {
      flux = await startFlux(kube, { verbose: values.verbose ?? false });
    } catch (error) {
      await kube.stop();
      throw error;
    }
    console.log(`realkube: Flux CRDs installed and ${fluxControllers.join(", ")} ready in ${(flux.startMillis / 1000).toFixed(1)} s (artifacts at ${flux.storageUrl}, logs in ${flux.dir})`);
  }
  console.log(`realkube: try  kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`realkube: ${signal}, stopping`);
    void (async () => {
      await flux?.stop();
      await kube.stop();
      process.exit(0);
    })();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
