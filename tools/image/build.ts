// Executes deploy/Dockerfile without a container runtime. Each instruction
// that changes files runs on an overlayfs mount of the stage's layers with a
// fresh upper folder, and that upper folder becomes the instruction's layer —
// the way Docker's overlay2 storage makes layers. RUN executes its shell
// command unchanged in a chroot; COPY copies from the build context (honouring
// the Dockerfile's .dockerignore) or from an earlier stage; the rest sets the
// image configuration. Must run as root inside its own mount namespace
// (tools/image/main.ts arranges that).
import fs from "node:fs";
import path from "node:path";
import { bindMount, mountRuntimeFiles, processEnv, removeTree, resolveUser, runInRoot, sh, unmountAll } from "./chroot";
import { resolveBase, type BaseContext, type Bind, type ImageConfig, type Layer } from "./bases";
import { dockerignore, parseDockerfile, type Instruction, type Stage } from "./dockerfile";

export interface History {
  created_by: string;
  empty_layer?: boolean;
}

export interface BuiltImage {
  layers: Layer[];
  config: ImageConfig;
  history: History[];
}

interface StageState extends BuiltImage {
  binds: Bind[];
}

export interface BuildOptions {
  dockerfile: string;
  context: string;
  cacheDir: string;
  workDir: string;
  freshBase: boolean;
  log: (line: string) => void;
}

export async function buildImage(opts: BuildOptions): Promise<BuiltImage> {
  const parsed = parseDockerfile(fs.readFileSync(opts.dockerfile, "utf8"));
  const ignoreFile = `${opts.dockerfile}.dockerignore`;
  const alt = path.join(opts.context, ".dockerignore");
  const ignored = dockerignore(fs.existsSync(ignoreFile) ? fs.readFileSync(ignoreFile, "utf8") : fs.existsSync(alt) ? fs.readFileSync(alt, "utf8") : "");
  const builder = new Builder(opts, ignored);
  const done = new Map<string, StageState>();
  let last: StageState | undefined;
  for (const [i, stage] of parsed.stages.entries()) {
    last = await builder.stage(stage, i, done);
    done.set(stage.name ?? String(i), last);
  }
  const final = last as StageState;
  return { layers: final.layers, config: final.config, history: final.history };
}

class Builder {
  private n = 0;
  private readonly base: BaseContext;
  private readonly network = hostNetworkSettings();

  constructor(
    private readonly opts: BuildOptions,
    private readonly ignored: (rel: string) => boolean,
  ) {
    this.base = { cacheDir: opts.cacheDir, workDir: opts.workDir, log: opts.log };
  }

  async stage(stage: Stage, index: number, done: Map<string, StageState>): Promise<StageState> {
    const label = stage.name ?? String(index);
    const from = done.get(stage.from);
    let state: StageState;
    if (from) state = structuredClone(from);
    else {
      const base = resolveBase(stage.from, this.base, this.opts.freshBase);
      state = { layers: base.layers, config: base.config, binds: base.binds, history: base.layers.map((l) => ({ created_by: l.createdBy })) };
    }
    this.opts.log(`image: stage ${label} FROM ${stage.from}`);
    for (const ins of stage.instructions) await this.instruction(ins, state, done, label);
    return state;
  }

  private async instruction(ins: Instruction, s: StageState, done: Map<string, StageState>, label: string): Promise<void> {
    const workdir = s.config.WorkingDir || "/";
    const note = (created_by: string): void => {
      s.history.push({ created_by, empty_layer: true });
    };
    switch (ins.op) {
      case "ENV":
        for (const [k, v] of ins.pairs) s.config.Env = [...s.config.Env.filter((e) => !e.startsWith(`${k}=`)), `${k}=${v}`];
        return note(`ENV ${ins.pairs.map(([k, v]) => `${k}=${v}`).join(" ")}`);
      case "LABEL":
        s.config.Labels = { ...s.config.Labels, ...Object.fromEntries(ins.pairs) };
        return note(`LABEL ${ins.pairs.map(([k, v]) => `${k}=${v}`).join(" ")}`);
      case "USER":
        s.config.User = ins.user;
        return note(`USER ${ins.user}`);
      case "EXPOSE":
        s.config.ExposedPorts = { ...s.config.ExposedPorts, ...Object.fromEntries(ins.ports.map((p) => [p, {}])) };
        return note(`EXPOSE ${ins.ports.join(" ")}`);
      case "ENTRYPOINT":
        // As Docker does: a new ENTRYPOINT drops the CMD inherited from the base image.
        s.config.Entrypoint = ins.argv;
        s.config.Cmd = null;
        return note(`ENTRYPOINT ${JSON.stringify(ins.argv)}`);
      case "CMD":
        s.config.Cmd = ins.argv;
        return note(`CMD ${JSON.stringify(ins.argv)}`);
      case "WORKDIR": {
        const dir = path.posix.resolve(workdir, ins.path);
        s.config.WorkingDir = dir;
        await this.step(s, `WORKDIR ${dir}`, false, (root) => {
          if (!fs.existsSync(path.join(root, dir))) fs.mkdirSync(path.join(root, dir), { recursive: true, mode: 0o755 });
        });
        return;
      }
      case "RUN":
        this.opts.log(`image: [${label}] RUN ${ins.command}`);
        await this.step(s, `RUN /bin/sh -c ${ins.command}`, true, async (root) => {
          const identity = resolveUser(root, s.config.User);
          await runInRoot({ root, identity, env: processEnv(s.config.Env, identity, this.network.env), cwd: workdir, argv: ["/bin/sh", "-c", ins.command] });
        });
        return;
      case "COPY": {
        const source = ins.from !== undefined ? done.get(ins.from) : undefined;
        if (ins.from !== undefined && !source) throw new Error(`Dockerfile line ${ins.line}: COPY --from=${ins.from} names no earlier stage`);
        this.opts.log(`image: [${label}] COPY ${ins.from ? `--from=${ins.from} ` : ""}${ins.sources.join(" ")} ${ins.dest}`);
        const dest = path.posix.resolve(workdir, ins.dest);
        const intoDir = ins.dest.endsWith("/") || ins.sources.length > 1;
        await this.step(s, `COPY ${ins.from ? `--from=${ins.from} ` : ""}${ins.sources.join(" ")} ${dest}`, false, (root) => {
          const view = source ? this.mountView(source) : null;
          try {
            for (const src of ins.sources) {
              const from = view ? path.join(view, path.posix.resolve("/", src)) : path.join(this.opts.context, path.posix.normalize(src));
              if (!fs.existsSync(from)) throw new Error(`Dockerfile line ${ins.line}: COPY source ${src} does not exist`);
              this.copy(from, path.join(root, dest), intoDir, view === null);
            }
          } finally {
            if (view) unmountAll(view);
          }
        });
        return;
      }
    }
  }

  /** Copies like COPY: a folder's contents into dest, a file into dest (a folder when dest ends with /). */
  private copy(from: string, to: string, intoDir: boolean, fromContext: boolean): void {
    const isDir = fs.statSync(from).isDirectory();
    const target = isDir || !intoDir ? to : path.join(to, path.basename(from));
    fs.mkdirSync(isDir ? target : path.dirname(target), { recursive: true, mode: 0o755 });
    if (!fromContext) {
      // Modes, owners and times as they are in the stage (file times matter: npm start compares them with .next/BUILD_ID).
      sh(isDir ? ["cp", "-a", `${from}/.`, `${target}/`] : ["cp", "-a", from, target]);
      return;
    }
    const context = this.opts.context;
    fs.cpSync(from, target, {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
      filter: (src) => {
        const rel = path.relative(context, src).split(path.sep).join("/");
        return rel === "" || !this.ignored(rel);
      },
    });
  }

  /** A read-only view of an earlier stage's filesystem, for COPY --from. */
  private mountView(stage: StageState): string {
    const mnt = path.join(this.opts.workDir, "view");
    fs.mkdirSync(mnt, { recursive: true });
    const lower = stage.layers.map((l) => l.dir).reverse();
    if (lower.length === 1) bindMount(lower[0] as string, mnt, true);
    else sh(["mount", "-t", "overlay", "overlay", "-o", `ro,lowerdir=${lower.join(":")}`, mnt]);
    return mnt;
  }

  /**
   * One layer-making instruction: the stage's layers under an overlay with an
   * empty upper folder; what the instruction writes lands in the upper folder,
   * which becomes the new layer (none when it wrote nothing).
   */
  private async step(s: StageState, createdBy: string, runtime: boolean, fn: (root: string) => void | Promise<void>): Promise<void> {
    const n = ++this.n;
    const dir = path.join(this.opts.workDir, "layers", String(n));
    const upper = path.join(dir, "diff");
    const work = path.join(dir, "work");
    const merged = path.join(this.opts.workDir, "mnt");
    // Mount points the step needs but the image must not keep: a lower layer of their own, never exported.
    const scaffold = path.join(dir, "scaffold");
    for (const d of [upper, work, merged, scaffold]) fs.mkdirSync(d, { recursive: true });
    const binds = runtime ? [...s.binds, ...this.network.binds] : [];
    if (runtime) {
      fs.mkdirSync(path.join(scaffold, "etc"), { recursive: true });
      fs.writeFileSync(path.join(scaffold, "etc/resolv.conf"), "");
      for (const b of binds) {
        fs.mkdirSync(path.join(scaffold, b.file ? path.dirname(b.target) : b.target), { recursive: true });
        if (b.file) fs.writeFileSync(path.join(scaffold, b.target), "");
      }
    }
    const lower = [scaffold, ...s.layers.map((l) => l.dir).reverse()].join(":");
    sh(["mount", "-t", "overlay", "overlay", "-o", `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged]);
    try {
      if (runtime) {
        mountRuntimeFiles(merged);
        for (const b of binds) bindMount(b.host, path.join(merged, b.target), b.readOnly);
      }
      await fn(merged);
    } finally {
      unmountAll(merged);
      removeTree(work);
      removeTree(scaffold);
    }
    // Mount points copied up because a step wrote beside them are the runtime's, not the image's.
    if (runtime) dropUnchangedMountPoints(upper, binds);
    if (fs.readdirSync(upper).length === 0) {
      removeTree(dir);
      s.history.push({ created_by: createdBy, empty_layer: true });
      return;
    }
    s.layers = [...s.layers, { dir: upper, createdBy }];
    s.history.push({ created_by: createdBy });
  }
}

/**
 * What RUN steps need of this machine's network and nothing of the image: the
 * proxy variables Docker passes to builds as predefined ARGs, and the CA
 * bundle of a TLS-intercepting proxy (NODE_EXTRA_CA_CERTS / SSL_CERT_FILE),
 * mounted outside the image's own trust store and named by the same variables.
 */
function hostNetworkSettings(): { env: Record<string, string>; binds: Bind[] } {
  const env: Record<string, string> = {};
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "NO_PROXY", "ALL_PROXY"]) {
    for (const variant of [name, name.toLowerCase()]) {
      const value = process.env[variant];
      if (value) env[variant] = value;
    }
  }
  const binds: Bind[] = [];
  const ca = process.env.NODE_EXTRA_CA_CERTS ?? process.env.SSL_CERT_FILE;
  if (ca && fs.existsSync(ca)) {
    const target = "/run/driftwatch-build/ca-certificates.crt";
    binds.push({ host: ca, target, readOnly: true, file: true });
    Object.assign(env, { NODE_EXTRA_CA_CERTS: target, SSL_CERT_FILE: target, GIT_SSL_CAINFO: target });
  }
  return { env, binds };
}

function dropUnchangedMountPoints(upper: string, binds: Bind[]): void {
  const resolv = path.join(upper, "etc/resolv.conf");
  if (fs.existsSync(resolv) && fs.statSync(resolv).size === 0) fs.rmSync(resolv);
  for (const b of binds) {
    let p = path.join(upper, b.target);
    if (b.file) {
      if (fs.existsSync(p) && fs.statSync(p).size === 0) fs.rmSync(p);
      p = path.dirname(p);
    }
    // Remove the mount point and the now-empty folders above it that only existed for it.
    while (p.startsWith(upper) && p !== upper && fs.existsSync(p) && fs.statSync(p).isDirectory() && fs.readdirSync(p).length === 0) {
      fs.rmdirSync(p);
      p = path.dirname(p);
    }
  }
}
