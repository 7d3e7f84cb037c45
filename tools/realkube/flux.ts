// The real Flux controllers (source-controller, kustomize-controller,
// helm-controller) running as plain processes beside a realkube API server,
// the way Flux's own test suites run them against envtest: no leader
// election, no in-cluster service account (a kubeconfig instead), and
// source-controller's artifact server on a loopback port that the other two
// download from. One per test file; stop() leaves no process and no folder.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { binaryPath, isBuilt, type BinaryName } from "./binaries";
import { freePort, logTo, request, type RealKube } from "./cluster";

export type FluxController = "source-controller" | "kustomize-controller" | "helm-controller";

export interface RealFlux {
  /** Where source-controller serves artifacts: http://127.0.0.1:PORT */
  storageUrl: string;
  /** Namespace the controllers consider their own (RUNTIME_NAMESPACE); created by start. */
  namespace: string;
  /** Milliseconds from installing the CRDs to every controller answering /readyz. */
  startMillis: number;
  /** Process ids of the controllers, for checking that stop ended them. */
  pids: number[];
  /** The instance's temporary folder (artifact storage, logs); removed by stop. */
  dir: string;
  /** The last lines a controller wrote, for a test's failure message. */
  logTail(controller: FluxController, lines?: number): string;
  stop(): Promise<void>;
}

export interface FluxOptions {
  /** Which controllers to run; all three by default. */
  controllers?: FluxController[];
  /** Folder of CustomResourceDefinition files to install first; Flux's own CRDs at the pinned versions by default. */
  crdsDir?: string;
  /** Forward the controllers' output (otherwise kept in the instance folder for error messages). */
  verbose?: boolean;
  readyTimeoutMs?: number;
  /** Controllers' log level (info by default; debug shows every reconcile). */
  logLevel?: "debug" | "info" | "error";
}

export const defaultFluxCrdsDir = path.resolve(import.meta.dirname, "../../test/fixtures/flux-crds");
const allControllers: FluxController[] = ["source-controller", "kustomize-controller", "helm-controller"];

function requireBinary(name: BinaryName): string {
  if (!isBuilt(name)) throw new Error(`realkube: ${name} is not built yet; run \`npm run realkube:build\` (npm test does it first)`);
  return binaryPath(name);
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Obj = Record<string, unknown>;

/** Creates (or keeps) every CRD in the folder and waits until the API server serves each as Established. */
async function installCrds(kube: RealKube, dir: string, deadline: number): Promise<string[]> {
  const base = `${kube.server}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
  const names: string[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(dir, file), "utf8"))) {
      const crd = doc.toJSON() as Obj | null;
      if (!crd || crd.kind !== "CustomResourceDefinition") continue;
      const r = await request(base, "POST", kube.caPem, kube.readWriteToken, crd);
      if (r.status !== 201 && r.status !== 409) throw new Error(`realkube: installing ${file} failed (${r.status}): ${r.text.slice(0, 500)}`);
      names.push(String((crd.metadata as Obj).name));
    }
  }
  for (const name of names) {
    for (;;) {
      const r = await request(`${base}/${name}`, "GET", kube.caPem, kube.readWriteToken);
      const conditions = ((JSON.parse(r.text) as { status?: { conditions?: Array<{ type: string; status: string }> } }).status?.conditions ?? []);
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new Error(`realkube: CRD ${name} not established in time`);
      await sleep(100);
    }
  }
  return names;
}

/** Ends the controller's whole process group (SIGTERM, then SIGKILL after 10 s) and waits for it. */
async function terminateGroup(child: ChildProcess): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      // Already gone.
    }
  };
  if (child.exitCode !== null || child.signalCode !== null) {
    signal("SIGKILL"); // the leader is gone; anything it left in its group goes too
    return;
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signal("SIGTERM");
  const killed = setTimeout(() => signal("SIGKILL"), 10_000);
  await exited;
  clearTimeout(killed);
}

export async function startFlux(kube: RealKube, options: FluxOptions = {}): Promise<RealFlux> {
  const controllers = options.controllers ?? allControllers;
  const binaries = new Map(controllers.map((c) => [c, requireBinary(c)]));
  const started = Date.now();
  const deadline = started + (options.readyTimeoutMs ?? 60_000);
  const verbose = options.verbose ?? false;
  const namespace = "flux-system";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-realflux-"));
  const children = new Map<FluxController, ChildProcess>();
  const tails = new Map<FluxController, () => string>();
  // A test runner that dies without calling stop() must not leave controllers behind.
  const killOnExit = () => {
    for (const c of children.values()) {
      try {
        if (c.pid) process.kill(-c.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  };
  process.once("exit", killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // The consumers of artifacts first, their source last.
    await Promise.all([...children.entries()].filter(([name]) => name !== "source-controller").map(([, c]) => terminateGroup(c)));
    const source = children.get("source-controller");
    if (source) await terminateGroup(source);
    process.removeListener("exit", killOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await installCrds(kube, options.crdsDir ?? defaultFluxCrdsDir, deadline);
    const ns = await request(`${kube.server}/api/v1/namespaces`, "POST", kube.caPem, kube.readWriteToken, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    if (ns.status !== 201 && ns.status !== 409) throw new Error(`realkube: creating namespace ${namespace} failed (${ns.status}): ${ns.text}`);

    const storagePort = await freePort();
    const storageAddr = `127.0.0.1:${storagePort}`;
    const storagePath = path.join(dir, "artifacts");
    fs.mkdirSync(storagePath);
    const healthPorts = new Map<FluxController, number>();
    for (const name of controllers) {
      const healthPort = await freePort();
      healthPorts.set(name, healthPort);
      const args = [
        "--enable-leader-election=false",
        "--watch-all-namespaces=true",
        // Metrics are not read here; "0" turns controller-runtime's metrics server off.
        "--metrics-addr=0",
        `--health-addr=127.0.0.1:${healthPort}`,
        `--log-level=${options.logLevel ?? "info"}`,
        "--log-encoding=json",
        // Their defaults wait up to 15 minutes between retries; a test wants to see a retry.
        "--min-retry-delay=500ms",
        "--max-retry-delay=5s",
        "--requeue-dependency=2s",
      ];
      if (name === "source-controller") {
        args.push(`--storage-path=${storagePath}`, `--storage-addr=${storageAddr}`, `--storage-adv-addr=${storageAddr}`, "--artifact-retention-ttl=30s");
      } else {
        // Flux's multi-tenancy lockdown: a Kustomization or HelmRelease may use only sources in its own namespace.
        args.push("--no-cross-namespace-refs=true");
      }
      if (name === "kustomize-controller") args.push("--no-remote-bases=true");
      if (name === "helm-controller") args.push("--graceful-shutdown-timeout=5s");
      const out = logTo(dir, name, verbose);
      const child = spawn(binaries.get(name) as string, args, {
        cwd: dir,
        // Its own process group, so stop() ends anything it starts as well.
        detached: true,
        stdio: out.stdio,
        // Only what they need: nothing of this process's environment (credentials, proxies) leaks in.
        env: {
          NODE_ENV: process.env.NODE_ENV,
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: dir,
          TMPDIR: dir,
          KUBECONFIG: kube.kubeconfigPath,
          RUNTIME_NAMESPACE: namespace,
        },
      });
      out.spawned();
      children.set(name, child);
      tails.set(name, out.tail);
    }

    for (const [name, port] of healthPorts) {
      const child = children.get(name) as ChildProcess;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`realkube: ${name} exited with ${child.exitCode}:\n${tails.get(name)?.()}`);
        if ((await httpStatus(`http://127.0.0.1:${port}/readyz`)) === 200) break;
        if (Date.now() > deadline) throw new Error(`realkube: ${name} not ready within ${options.readyTimeoutMs ?? 60_000} ms:\n${tails.get(name)?.()}`);
        await sleep(100);
      }
    }
    // The artifact server starts once the manager runs; kustomize- and helm-controller download from it.
    if (controllers.includes("source-controller")) {
      while ((await httpStatus(`http://${storageAddr}/`)) === 0) {
        if (Date.now() > deadline) throw new Error(`realkube: source-controller's artifact server did not listen on ${storageAddr}:\n${tails.get("source-controller")?.()}`);
        await sleep(100);
      }
    }
    return {
      storageUrl: `http://${storageAddr}`,
      namespace,
      startMillis: Date.now() - started,
      pids: [...children.values()].map((c) => c.pid ?? -1),
      dir,
      logTail: (controller, lines = 40) => {
        const tail = tails.get(controller)?.() ?? "(not running)";
        return tail.split("\n").slice(-lines).join("\n");
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
