// Verifies a built image with no container runtime: unpack its layers in
// order (whiteouts honoured), then run what a user would run, inside it with
// chroot as the image's user: the pinned helm, node, git, and the web tier
// answering GET /api/health against a Postgres on this machine.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { ensureEmbeddedRoles } from "@/lib/db/roles";
import { bindMount, mountRuntimeFiles, outputInRoot, processEnv, resolveUser, spawnInRoot, type Identity } from "./chroot";
import { promisedByDockerfile } from "./dockerfile";
import { readImage, unpackLayers } from "./oci";

export interface VerifyOptions {
  imageTar: string;
  dockerfile: string;
  /** driftwatch.yaml mounted at DRIFTWATCH_CONFIG, as the Kustomize base mounts its ConfigMap. */
  configFile: string;
  workDir: string;
  log: (line: string) => void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function verifyImage(opts: VerifyOptions): Promise<void> {
  const { log } = opts;
  const failures: string[] = [];
  const check = (what: string, ok: boolean, detail: string) => {
    log(`${ok ? "ok  " : "FAIL"} ${what}: ${detail}`);
    if (!ok) failures.push(what);
  };

  const started = Date.now();
  const image = readImage(opts.imageTar, path.join(opts.workDir, "verify-oci"));
  const rootfs = path.join(opts.workDir, "verify-rootfs");
  const { whiteouts } = unpackLayers(image.layerFiles, rootfs);
  log(`image: unpacked ${image.layerFiles.length} layers (${whiteouts} whiteouts applied) into ${rootfs} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const promised = promisedByDockerfile(fs.readFileSync(opts.dockerfile, "utf8"));
  const cfg = image.config.config;
  check("config Env", promised.env.every((e) => cfg.Env.includes(e)), cfg.Env.join(" "));
  check("config User", cfg.User === promised.user, String(cfg.User));
  check("config WorkingDir", cfg.WorkingDir === promised.workdir, String(cfg.WorkingDir));
  check("config Entrypoint", JSON.stringify(cfg.Entrypoint) === JSON.stringify(promised.entrypoint), JSON.stringify(cfg.Entrypoint));
  check("config Cmd", JSON.stringify(cfg.Cmd) === JSON.stringify(promised.cmd), JSON.stringify(cfg.Cmd));
  check("config ExposedPorts", promised.ports.every((p) => cfg.ExposedPorts?.[p]), JSON.stringify(cfg.ExposedPorts));

  const identity: Identity = resolveUser(rootfs, cfg.User);
  check("user", identity.uid === 1000 && identity.gid === 1000, `${cfg.User} is uid ${identity.uid} gid ${identity.gid} in the image's /etc/passwd`);

  // What a runtime provides: /dev, DNS settings, and the config file the Deployment mounts.
  fs.writeFileSync(path.join(rootfs, "etc/resolv.conf"), "");
  mountRuntimeFiles(rootfs);
  const configPath = cfg.Env.find((e) => e.startsWith("DRIFTWATCH_CONFIG="))?.slice("DRIFTWATCH_CONFIG=".length) ?? "/etc/driftwatch/driftwatch.yaml";
  fs.mkdirSync(path.dirname(path.join(rootfs, configPath)), { recursive: true });
  fs.writeFileSync(path.join(rootfs, configPath), "");
  bindMount(opts.configFile, path.join(rootfs, configPath), true);

  const inImage = (argv: string[]) => {
    const r = outputInRoot({ root: rootfs, identity, env: processEnv(cfg.Env, identity), cwd: cfg.WorkingDir || "/", argv });
    return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
  };
  const id = inImage(["id"]);
  check("id", id.status === 0 && /^uid=1000\(node\) gid=1000\(node\)/.test(id.out), id.out);
  const helm = inImage(["helm", "version", "--short"]);
  check("helm version --short", helm.status === 0 && promised.helmVersion !== undefined && helm.out.startsWith(promised.helmVersion), `${helm.out} (Dockerfile pins ${promised.helmVersion})`);
  const node = inImage(["node", "-v"]);
  check("node -v", node.status === 0 && node.out.startsWith(`v${promised.nodeMajor}.`), node.out);
  const git = inImage(["git", "--version"]);
  check("git --version", git.status === 0 && /^git version \d/.test(git.out), git.out);
  const ssh = inImage(["ssh", "-V"]);
  check("ssh -V", ssh.status === 0 && /OpenSSH/.test(ssh.out), ssh.out);
  const readOnly = inImage(["sh", "-c", "touch /app/package.json 2>&1; test -w /var/lib/driftwatch && echo data-writable"]);
  check("app files read-only, data folder writable", /Permission denied/.test(readOnly.out) && readOnly.out.includes("data-writable"), readOnly.out.replace(/\n/g, " | "));

  await webTier(rootfs, identity, cfg, check, log);

  if (failures.length > 0) throw new Error(`image verification failed: ${failures.join(", ")}`);
  log(`image: verified in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** ENTRYPOINT + CMD (tini -- npm start) as uid 1000, against a Postgres on this machine; then SIGTERM, as a runtime stops it. */
async function webTier(rootfs: string, identity: Identity, cfg: ReturnType<typeof readImage>["config"]["config"], check: (w: string, ok: boolean, d: string) => void, log: (l: string) => void): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-image-pg-"));
  const pg = await startEmbeddedPostgres({ dataDir });
  try {
    const roles = await ensureEmbeddedRoles(pg.url);
    const port = await freePort();
    const argv = [...(cfg.Entrypoint ?? []), ...(cfg.Cmd ?? [])];
    // The variables the Kustomize base's Secret and Deployment add; PORT moves off 3000, which other programs on this machine may hold.
    const extra = { DATABASE_URL: roles.appUrl, DATABASE_MIGRATION_URL: roles.ownerUrl, DRIFTWATCH_IN_PROCESS_COLLECTOR: "false", PORT: String(port), GIT_TOKEN: "unused", WEBHOOK_SECRET: "unused-webhook-secret" };
    log(`image: starting ${JSON.stringify(argv)} as uid ${identity.uid} on port ${port}, DATABASE_URL -> embedded Postgres on 127.0.0.1:${pg.port}`);
    const child = spawnInRoot({ root: rootfs, identity, env: processEnv(cfg.Env, identity, extra), cwd: cfg.WorkingDir || "/", argv }, "pipe");
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    let exitCode: number | null | undefined;
    void exited.then((c) => (exitCode = c));
    const startedAt = Date.now();
    let health: { status: number; body: string } | undefined;
    while (Date.now() - startedAt < 180_000 && exitCode === undefined) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        health = { status: res.status, body: await res.text() };
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    check("npm start answers GET /api/health", health?.status === 200, health ? `${health.status} ${health.body} after ${seconds} s` : `no answer after ${seconds} s; exit ${String(exitCode)}; output:\n${output.slice(-3000)}`);
    // tini is the first process of the PID namespace: the child of unshare's fork.
    const inner = Number(fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/)[0]);
    if (inner > 0) process.kill(inner, "SIGTERM");
    const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000))]);
    if (code === "timeout") child.kill("SIGKILL");
    // The server must see the signal and stop itself (Kubernetes and `docker stop` send SIGTERM to PID 1, tini);
    // if the processes between tini and it die first, tini exits and the server is killed mid-request.
    check("SIGTERM reaches the server, which stops cleanly", code === 0 && output.includes("SIGTERM: stopping"), `exit ${code}${output.includes("SIGTERM: stopping") ? ", server logged SIGTERM: stopping…" : ", the server never logged SIGTERM: stopping…"}`);
    log(`image: server output (last lines):\n${output.trim().split("\n").slice(-12).map((l) => `    ${l}`).join("\n")}`);
  } finally {
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
