// A real etcd + kube-apiserver pair on free loopback ports, the way
// controller-runtime's envtest runs them: one per test suite (or per person,
// through `npm run realkube`), from the cached binaries, torn down completely.
//
// Two bearer tokens reach it: read-write (group system:masters, which the
// server's own bootstrap binding ties to cluster-admin) and read-only (bound
// here to the rules of the built-in `view` ClusterRole: no Secrets, no
// writes). RBAC is the only authorizer, so whatever a test grants a service
// account is exactly what it can do.
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { tlsMaterial } from "@driftwatch/kubesim";
import { binaryPath, isBuilt, type BinaryName } from "./binaries";

export interface RealKube {
  /** https://127.0.0.1:PORT */
  server: string;
  caPem: string;
  /** http://127.0.0.1:PORT: etcd's client address (tests compact it to expire resourceVersions). */
  etcdUrl: string;
  readWriteToken: string;
  readOnlyToken: string;
  /** Written by start; contexts `realkube` (read-write, current) and `realkube-ro`. */
  kubeconfigPath: string;
  /** Milliseconds from spawning etcd to the API server answering /readyz and the read-only binding in place. */
  startMillis: number;
  /** The instance's temporary folder (certificates, tokens, etcd data, logs); removed by stop. */
  dir: string;
  /** Process ids of etcd and kube-apiserver, for checking that stop ended them. */
  pids: number[];
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Where to write the kubeconfig; defaults to a file in the instance's temporary folder. */
  kubeconfigPath?: string;
  /** Forward etcd's and kube-apiserver's own output (otherwise kept for the error message). */
  verbose?: boolean;
  readyTimeoutMs?: number;
  /** More kube-apiserver flags (for example `--watch-cache-sizes=configmaps#0`). */
  apiserverArgs?: string[];
}

export const readOnlyUser = "realkube-ro";
export const readWriteUser = "realkube-rw";

function requireBinary(name: BinaryName): string {
  if (!isBuilt(name)) {
    throw new Error(`realkube: ${name} is not built yet; run \`npm run realkube:build\` (npm test does it first)`);
  }
  return binaryPath(name);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Where a process's output goes: a file in the instance folder, read back when
 * a start fails. Not a pipe: a test that blocks its event loop (spawnSync)
 * would stop draining it, and kube-apiserver would hang on a full pipe.
 */
export function logTo(dir: string, name: string, verbose: boolean): { stdio: ["ignore", number | "inherit", number | "inherit"]; spawned(): void; tail(): string } {
  if (verbose) return { stdio: ["ignore", "inherit", "inherit"], spawned: () => {}, tail: () => "(printed above)" };
  const file = path.join(dir, `${name}.log`);
  const fd = fs.openSync(file, "a");
  return {
    stdio: ["ignore", fd, fd],
    // The child holds its own copy of the descriptor.
    spawned: () => fs.closeSync(fd),
    tail: () => {
      try {
        return fs.readFileSync(file, "utf8").split("\n").slice(-40).join("\n");
      } catch {
        return "(no output)";
      }
    },
  };
}

function get(url: string, caPem: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca: caPem, headers: { authorization: `Bearer ${token}` }, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.on("timeout", () => req.destroy());
  });
}

export function request(url: string, method: string, caPem: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? "" : JSON.stringify(body);
    const req = https.request(url, { method, ca: caPem, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killed = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited(child);
  clearTimeout(killed);
}

export function kubeconfigYaml(server: string, caPem: string, readWriteToken: string, readOnlyToken: string): string {
  const ca = Buffer.from(caPem).toString("base64");
  return `apiVersion: v1
kind: Config
clusters:
- name: realkube
  cluster:
    server: ${server}
    certificate-authority-data: ${ca}
users:
- name: ${readWriteUser}
  user:
    token: ${readWriteToken}
- name: ${readOnlyUser}
  user:
    token: ${readOnlyToken}
contexts:
- name: realkube
  context:
    cluster: realkube
    user: ${readWriteUser}
- name: realkube-ro
  context:
    cluster: realkube
    user: ${readOnlyUser}
current-context: realkube
`;
}

export async function startRealKube(options: StartOptions = {}): Promise<RealKube> {
  const etcdBin = requireBinary("etcd");
  const apiserverBin = requireBinary("kube-apiserver");
  const verbose = options.verbose ?? false;
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-realkube-"));
  const children: ChildProcess[] = [];
  // A test runner that dies without calling stop() must not leave servers behind.
  const killOnExit = () => children.forEach((c) => c.kill("SIGKILL"));
  process.once("exit", killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // The API server first: it holds etcd connections and would log errors while etcd goes away.
    for (const child of [...children].reverse()) await terminate(child);
    process.removeListener("exit", killOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const tls = tlsMaterial();
    fs.writeFileSync(path.join(dir, "ca.crt"), tls.caPem);
    fs.writeFileSync(path.join(dir, "apiserver.crt"), tls.certPem);
    fs.writeFileSync(path.join(dir, "apiserver.key"), tls.keyPem, { mode: 0o600 });
    // Service-account tokens (kubectl create token) are signed with this key; EC keys generate in microseconds.
    const sa = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    fs.writeFileSync(path.join(dir, "sa.key"), sa.privateKey.export({ type: "pkcs8", format: "pem" }).toString(), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, "sa.pub"), sa.publicKey.export({ type: "spki", format: "pem" }).toString());
    const readWriteToken = randomBytes(24).toString("hex");
    const readOnlyToken = randomBytes(24).toString("hex");
    fs.writeFileSync(path.join(dir, "tokens.csv"), `${readWriteToken},${readWriteUser},${readWriteUser},"system:masters"\n${readOnlyToken},${readOnlyUser},${readOnlyUser}\n`, { mode: 0o600 });

    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const etcdOut = logTo(dir, "etcd", verbose);
    const etcd = spawn(etcdBin, [
      "--name=realkube",
      `--data-dir=${path.join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=realkube=http://127.0.0.1:${peerPort}`,
      // Test data: losing it on a crash costs nothing, fsync on a shared disk costs seconds.
      "--unsafe-no-fsync",
      "--log-level=warn",
    ], { stdio: etcdOut.stdio });
    etcdOut.spawned();
    children.push(etcd);
    const etcdLog = etcdOut.tail;

    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverOut = logTo(dir, "kube-apiserver", verbose);
    const apiserver = spawn(apiserverBin, [
      `--etcd-servers=${etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--cert-dir=${dir}`,
      `--tls-cert-file=${path.join(dir, "apiserver.crt")}`,
      `--tls-private-key-file=${path.join(dir, "apiserver.key")}`,
      `--token-auth-file=${path.join(dir, "tokens.csv")}`,
      "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc",
      `--service-account-key-file=${path.join(dir, "sa.pub")}`,
      `--service-account-signing-key-file=${path.join(dir, "sa.key")}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      // No controller-manager runs, so nothing creates each namespace's `default`
      // ServiceAccount; this plugin would refuse every Pod for lack of it.
      "--disable-admission-plugins=ServiceAccount",
      ...(options.apiserverArgs ?? []),
    ], { stdio: apiserverOut.stdio });
    apiserverOut.spawned();
    children.push(apiserver);
    const apiserverLog = apiserverOut.tail;

    const deadline = started + (options.readyTimeoutMs ?? 60_000);
    for (;;) {
      if (etcd.exitCode !== null) throw new Error(`realkube: etcd exited with ${etcd.exitCode}:\n${etcdLog()}`);
      if (apiserver.exitCode !== null) throw new Error(`realkube: kube-apiserver exited with ${apiserver.exitCode}:\n${apiserverLog()}`);
      if ((await get(`${server}/readyz`, tls.caPem, readWriteToken)) === 200) break;
      if (Date.now() > deadline) throw new Error(`realkube: kube-apiserver not ready within ${options.readyTimeoutMs ?? 60_000} ms:\n${apiserverLog()}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const binding = await request(`${server}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, "POST", tls.caPem, readWriteToken, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "realkube-read-only" },
      // `view` itself is empty here: its rules are aggregated by kube-controller-manager,
      // which does not run. The role it aggregates from carries the same rules.
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:aggregate-to-view" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: readOnlyUser }],
    });
    if (binding.status !== 201) throw new Error(`realkube: binding the read-only user failed (${binding.status}): ${binding.text}`);

    const kubeconfigPath = options.kubeconfigPath ?? path.join(dir, "kubeconfig");
    fs.writeFileSync(kubeconfigPath, kubeconfigYaml(server, tls.caPem, readWriteToken, readOnlyToken), { mode: 0o600 });
    return { server, caPem: tls.caPem, etcdUrl, readWriteToken, readOnlyToken, kubeconfigPath, startMillis: Date.now() - started, dir, pids: children.map((c) => c.pid ?? -1), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
