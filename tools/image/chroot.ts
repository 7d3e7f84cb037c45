// Running a program inside an unpacked or overlay-mounted root filesystem,
// the way a container runtime would start it (its own PID namespace and
// /proc, the image's environment only, a numeric user), with no runtime:
// `unshare` + `chroot`. Both the build's RUN steps and --verify use it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export function sh(argv: string[], opts: { cwd?: string; quiet?: boolean } = {}): string {
  const r = spawnSync(argv[0] as string, argv.slice(1), { cwd: opts.cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr ?? "").trim().slice(-2000)}`);
  return r.stdout;
}

export interface Identity {
  uid: number;
  gid: number;
  home: string;
}

/** Resolves USER (a name or uid[:gid]) against the root's own /etc/passwd, as a runtime does. */
export function resolveUser(root: string, user: string | undefined): Identity {
  const [who = "root", group] = (user || "root").split(":");
  const passwd = fs.readFileSync(path.join(root, "etc/passwd"), "utf8").split("\n").map((l) => l.split(":"));
  const entry = passwd.find((f) => f[0] === who || f[2] === who);
  if (!entry && !/^\d+$/.test(who)) throw new Error(`user "${who}" is not in the image's /etc/passwd`);
  const uid = entry ? Number(entry[2]) : Number(who);
  let gid = entry ? Number(entry[3]) : uid;
  if (group !== undefined) {
    const groups = fs.readFileSync(path.join(root, "etc/group"), "utf8").split("\n").map((l) => l.split(":"));
    const g = groups.find((f) => f[0] === group || f[2] === group);
    gid = g ? Number(g[2]) : Number(group);
  }
  return { uid, gid, home: entry?.[5] || "/" };
}

/** The environment a runtime hands the process: the image's Env, PATH and HOME filled in when absent. */
export function processEnv(imageEnv: string[], identity: Identity, extra: Record<string, string> = {}): string[] {
  const env = new Map<string, string>();
  env.set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  env.set("HOME", identity.home);
  for (const kv of imageEnv) {
    const i = kv.indexOf("=");
    env.set(kv.slice(0, i), kv.slice(i + 1));
  }
  for (const [k, v] of Object.entries(extra)) env.set(k, v);
  return [...env].map(([k, v]) => `${k}=${v}`);
}

export interface ChrootCommand {
  root: string;
  identity: Identity;
  env: string[];
  cwd: string;
  argv: string[];
}

/**
 * `unshare --pid --fork --mount-proc` gives the process tree its own /proc
 * and kills whatever it leaves behind when its first process ends; `env -i`
 * (the image's own coreutils) starts it with the image environment only.
 */
export function chrootArgv(c: ChrootCommand): string[] {
  return [
    "unshare", "--pid", "--fork", "--kill-child", `--mount-proc=${path.join(c.root, "proc")}`,
    "chroot", `--userspec=${c.identity.uid}:${c.identity.gid}`, "--groups=", c.root,
    "/usr/bin/env", "-i", "-C", c.cwd, ...c.env, ...c.argv,
  ];
}

export function spawnInRoot(c: ChrootCommand, stdio: "inherit" | "pipe" = "inherit"): ChildProcess {
  const [cmd, ...args] = chrootArgv(c);
  return spawn(cmd as string, args, { stdio: stdio === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"] });
}

export function runInRoot(c: ChrootCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnInRoot(c);
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${c.argv.join(" ")} exited ${code ?? signal}`))));
  });
}

export function outputInRoot(c: ChrootCommand): { status: number | null; stdout: string; stderr: string } {
  const [cmd, ...args] = chrootArgv(c);
  const r = spawnSync(cmd as string, args, { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** The kernel filesystems a program expects besides /proc: the host's /dev and its DNS settings. */
export function mountRuntimeFiles(root: string): void {
  sh(["mount", "--rbind", "/dev", path.join(root, "dev")]);
  sh(["mount", "--make-rslave", path.join(root, "dev")]);
  sh(["mount", "--bind", "-o", "ro", "/etc/resolv.conf", path.join(root, "etc/resolv.conf")]);
}

export function bindMount(host: string, target: string, readOnly: boolean): void {
  sh(["mount", "--bind", host, target]);
  if (readOnly) sh(["mount", "-o", "remount,bind,ro", target]);
}

export function unmountAll(mountpoint: string): void {
  sh(["umount", "-R", mountpoint]);
}

/**
 * rm -rf that refuses while anything is mounted below the folder: a root
 * with the host's /dev bound into it must never be deleted through the mount.
 */
export function removeTree(dir: string): void {
  const abs = path.resolve(dir);
  const mounted = fs
    .readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((m) => m === abs || m.startsWith(`${abs}/`));
  if (mounted.length > 0) throw new Error(`refusing to delete ${abs}: still mounted there: ${mounted.join(", ")}`);
  fs.rmSync(abs, { recursive: true, force: true });
}
