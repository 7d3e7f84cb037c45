// Reads deploy/Dockerfile into stages and instructions, so the daemonless
// build (tools/image/build.ts) executes the Dockerfile itself rather than a
// second description of the image that could drift from it. Only the subset
// of the Dockerfile language the build can execute faithfully is accepted;
// anything else is refused with the line that uses it.

export type Instruction =
  | { op: "RUN"; line: number; command: string }
  | { op: "COPY"; line: number; from?: string; sources: string[]; dest: string }
  | { op: "ENV"; line: number; pairs: Array<[string, string]> }
  | { op: "WORKDIR"; line: number; path: string }
  | { op: "USER"; line: number; user: string }
  | { op: "EXPOSE"; line: number; ports: string[] }
  | { op: "ENTRYPOINT"; line: number; argv: string[] }
  | { op: "CMD"; line: number; argv: string[] }
  | { op: "LABEL"; line: number; pairs: Array<[string, string]> };

export interface Stage {
  /** The base image reference after ARG substitution, or an earlier stage's name. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  args: Record<string, string>;
  stages: Stage[];
}

/** Joins continuation lines and drops comments, keeping each instruction's first line number. */
function logicalLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let current: { line: number; text: string } | null = null;
  text.split("\n").forEach((raw, i) => {
    const trimmed = raw.trim();
    // Docker drops comment lines even inside a continued instruction.
    if (trimmed.startsWith("#") || (trimmed === "" && current === null)) return;
    const continued = /\\\s*$/.test(raw);
    const body = continued ? raw.replace(/\\\s*$/, "") : raw;
    if (current) current.text += body;
    else current = { line: i + 1, text: body.trimStart() };
    if (!continued) {
      out.push({ line: current.line, text: current.text.trim() });
      current = null;
    }
  });
  if (current) throw new Error(`Dockerfile line ${(current as { line: number }).line}: the instruction ends with a line continuation`);
  return out;
}

function jsonArray(rest: string, line: number, op: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    throw new Error(`Dockerfile line ${line}: ${op} must use the JSON (exec) form here, got ${rest}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string")) throw new Error(`Dockerfile line ${line}: ${op} must be a JSON array of strings`);
  return parsed;
}

/** `K=V K2="V 2"` (the legacy `K V` form too, for ENV). */
function keyValues(rest: string, line: number, op: string): Array<[string, string]> {
  if (rest.includes("$")) throw new Error(`Dockerfile line ${line}: ${op} values with variable references are not supported by the daemonless build`);
  const pairs: Array<[string, string]> = [];
  const re = /\s*([A-Za-z_][A-Za-z0-9_.-]*)=("((?:[^"\\]|\\.)*)"|\S*)/y;
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*=/.test(rest)) {
    const m = /^(\S+)\s+(.*)$/.exec(rest);
    if (!m) throw new Error(`Dockerfile line ${line}: cannot read ${op} ${rest}`);
    return [[m[1] as string, (m[2] as string).trim()]];
  }
  let pos = 0;
  while (pos < rest.length) {
    re.lastIndex = pos;
    const m = re.exec(rest);
    if (!m) {
      if (rest.slice(pos).trim() === "") break;
      throw new Error(`Dockerfile line ${line}: cannot read ${op} near "${rest.slice(pos).trim()}"`);
    }
    pairs.push([m[1] as string, m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : (m[2] as string)]);
    pos = re.lastIndex;
  }
  return pairs;
}

export function parseDockerfile(text: string): Dockerfile {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const substitute = (s: string, line: number) =>
    s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => {
      const name = (a ?? b) as string;
      const value = args[name];
      if (value === undefined) throw new Error(`Dockerfile line ${line}: ARG ${name} has no default`);
      return value;
    });
  for (const { line, text: t } of logicalLines(text)) {
    const m = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(t);
    if (!m) throw new Error(`Dockerfile line ${line}: cannot read "${t}"`);
    const op = (m[1] as string).toUpperCase();
    const rest = (m[2] as string).trim();
    if (op === "ARG") {
      if (stages.length > 0) throw new Error(`Dockerfile line ${line}: ARG inside a stage is not supported by the daemonless build`);
      const [pair] = keyValues(rest, line, op);
      if (!pair || !rest.includes("=")) throw new Error(`Dockerfile line ${line}: ARG needs a default (ARG NAME=value)`);
      args[pair[0]] = pair[1];
      continue;
    }
    if (op === "FROM") {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!f) throw new Error(`Dockerfile line ${line}: cannot read FROM ${rest}`);
      stages.push({ from: substitute(f[1] as string, line), name: f[2], instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${line}: ${op} before the first FROM`);
    const push = (i: Instruction) => stage.instructions.push(i);
    switch (op) {
      case "RUN":
        if (rest.startsWith("[") || rest.startsWith("--")) throw new Error(`Dockerfile line ${line}: only the shell form of RUN without flags is supported`);
        push({ op, line, command: rest });
        break;
      case "COPY": {
        const words = rest.split(/\s+/);
        let from: string | undefined;
        while (words[0]?.startsWith("--")) {
          const flag = words.shift() as string;
          const fm = /^--from=(\S+)$/.exec(flag);
          if (!fm) throw new Error(`Dockerfile line ${line}: COPY ${flag} is not supported by the daemonless build`);
          from = fm[1];
        }
        if (words.length < 2) throw new Error(`Dockerfile line ${line}: COPY needs a source and a destination`);
        push({ op, line, from, sources: words.slice(0, -1), dest: words.at(-1) as string });
        break;
      }
      case "ENV":
        push({ op, line, pairs: keyValues(rest, line, op) });
        break;
      case "LABEL":
        push({ op, line, pairs: keyValues(rest, line, op) });
        break;
      case "WORKDIR":
        push({ op, line, path: rest });
        break;
      case "USER":
        push({ op, line, user: rest });
        break;
      case "EXPOSE":
        push({ op, line, ports: rest.split(/\s+/).map((p) => (p.includes("/") ? p : `${p}/tcp`)) });
        break;
      case "ENTRYPOINT":
      case "CMD":
        push({ op, line, argv: jsonArray(rest, line, op) });
        break;
      default:
        throw new Error(`Dockerfile line ${line}: ${op} is not supported by the daemonless build (tools/image); extend it or keep to RUN/COPY/ENV/WORKDIR/USER/EXPOSE/ENTRYPOINT/CMD/LABEL`);
    }
  }
  if (stages.length === 0) throw new Error("Dockerfile has no FROM");
  return { args, stages };
}

/** What the Dockerfile promises about the final image, read from the Dockerfile itself. */
export function promisedByDockerfile(text: string) {
  const parsed = parseDockerfile(text);
  const final = parsed.stages.at(-1) as (typeof parsed.stages)[number];
  const env: string[] = [];
  let user: string | undefined, workdir: string | undefined, entrypoint: string[] | undefined, cmd: string[] | undefined;
  const ports: string[] = [];
  for (const i of final.instructions) {
    if (i.op === "ENV") env.push(...i.pairs.map(([k, v]) => `${k}=${v}`));
    if (i.op === "USER") user = i.user;
    if (i.op === "WORKDIR") workdir = i.path;
    if (i.op === "ENTRYPOINT") entrypoint = i.argv;
    if (i.op === "CMD") cmd = i.argv;
    if (i.op === "EXPOSE") ports.push(...i.ports);
  }
  const helmRun = parsed.stages.flatMap((s) => s.instructions).find((i) => i.op === "RUN" && /go build .*cmd\/helm/.test(i.command));
  const helmVersion = helmRun && helmRun.op === "RUN" ? /version\.version=(v\d+\.\d+\.\d+)/.exec(helmRun.command)?.[1] : undefined;
  const nodeMajor = /^node:(\d+)-/.exec(final.from)?.[1];
  return { env, user, workdir, entrypoint, cmd, ports, helmVersion, nodeMajor };
}

/**
 * A .dockerignore matcher with Docker's rules: patterns are anchored at the
 * context root, `*` and `?` stay within one path segment, `**` spans any, a
 * pattern excluding a folder excludes everything under it, `!` re-includes,
 * and the last matching pattern wins.
 */
export function dockerignore(text: string): (relPath: string) => boolean {
  const rules = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = (negate ? l.slice(1) : l).replace(/^\/+|\/+$/g, "").replace(/^\.\//, "");
      let re = "";
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i] as string;
        if (c === "*" && pattern[i + 1] === "*") {
          re += ".*";
          i++;
          if (pattern[i + 1] === "/") i++;
        } else if (c === "*") re += "[^/]*";
        else if (c === "?") re += "[^/]";
        else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return { negate, re: new RegExp(`^${re}(/.*)?$`) };
    });
  return (relPath: string) => {
    let ignored = false;
    for (const rule of rules) if (rule.re.test(relPath)) ignored = !rule.negate;
    return ignored;
  };
}
