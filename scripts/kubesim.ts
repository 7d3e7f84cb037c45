// Serves the Kubernetes API imitation until stopped:
//   npm run kubesim -- --port 6443 --kubeconfig <file> [--state <file>]
import path from "node:path";
import { parseArgs } from "node:util";
import { startKubeSim } from "@driftwatch/kubesim";

const USAGE = `Usage: npm run kubesim -- [--port 6443] [--kubeconfig <file>] [--state <file>]
                        [--host 127.0.0.1] [--admin-port <port>|--no-admin] [--cluster-name kubesim]
                        [--no-controllers] [--no-workload-controllers]`;

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        kubeconfig: { type: "string" },
        state: { type: "string" },
        "admin-port": { type: "string" },
        "no-admin": { type: "boolean" },
        "cluster-name": { type: "string" },
        "no-controllers": { type: "boolean" },
        "no-workload-controllers": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (e) {
    console.error((e as Error).message);
    console.error(USAGE);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = values.port !== undefined ? Number(values.port) : 6443;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, got ${JSON.stringify(values.port)}`);
    process.exit(2);
  }
  const adminPort = values["no-admin"] ? false : values["admin-port"] !== undefined ? Number(values["admin-port"]) : undefined;
  const sim = await startKubeSim({
    port,
    host: values.host,
    kubeconfigPath: values.kubeconfig ? path.resolve(values.kubeconfig) : undefined,
    state: values.state ? path.resolve(values.state) : undefined,
    adminPort,
    clusterName: values["cluster-name"],
    controllers: !values["no-controllers"],
    workloadControllers: !values["no-controllers"] && !values["no-workload-controllers"],
  });
  console.log(`kubesim serving ${sim.url}`);
  console.log(`kubeconfig: ${sim.kubeconfigPath} (contexts: ${values["cluster-name"] ?? "kubesim"}, ${values["cluster-name"] ?? "kubesim"}-readonly)`);
  if (sim.adminUrl) console.log(`fault controls: ${sim.adminUrl}/faults`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`kubesim: ${signal}, stopping`);
    sim.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((e: unknown) => {
  const err = e as NodeJS.ErrnoException;
  if (err.code === "EADDRINUSE") console.error(`kubesim: the port is already in use (${err.message})`);
  else console.error(e);
  process.exit(1);
});
