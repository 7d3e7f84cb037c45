// Flux's post-build steps on kustomize's output, reproduced: variable
// substitution (`spec.postBuild.substitute` / `substituteFrom`, with the
// `${var}` grammar of fluxcd/pkg/envsubst) and `spec.commonMetadata`. Pure:
// the variables arrive resolved; Secret-sourced values live only in memory and
// never appear in an error message.

export class EnvsubstError extends Error {}

/** Flux refuses variable names outside this pattern before substituting anything. */
const VAR_NAME = /^[_\p{L}][_\p{L}\p{Nd}]*$/u;
const IDENT = /[\p{L}\p{Nd}_]/u;

type Node = { text: string } | { param: string; op: string; args: Node[][] };

/** Parses `${...}` expressions the way fluxcd/pkg/envsubst does; `$$` is a literal `$`. */
function parse(src: string): Node[] {
  let pos = 0;
  const nodes: Node[] = [];
  let text = "";
  const flush = () => {
    if (text) nodes.push({ text });
    text = "";
  };

  // A parameter inside `${name<op>...}`: text with `\\`/`\/` escapes and nested expressions, up to `stop`.
  const param = (stop: (c: string) => boolean): Node[] => {
    const out: Node[] = [];
    let t = "";
    while (pos < src.length) {
      const c = src[pos]!;
      if (c === "$" && src[pos + 1] === "{") {
        if (t) out.push({ text: t });
        t = "";
        pos += 2;
        out.push(func());
        continue;
      }
      if (c === "$" && src[pos + 1] === "$") {
        t += "$";
        pos += 2;
        continue;
      }
      if (c === "\\" && (src[pos + 1] === "\\" || src[pos + 1] === "/")) {
        t += src[pos + 1];
        pos += 2;
        continue;
      }
      if (stop(c)) break;
      t += c;
      pos++;
    }
    if (t) out.push({ text: t });
    return out;
  };
  const closeBrace = () => {
    if (src[pos] !== "}") throw new EnvsubstError("missing closing brace");
    pos++;
  };

  function func(): Node {
    if (src[pos] === "#") {
      pos++;
      const name = ident();
      if (!name) throw new EnvsubstError("bad substitution");
      closeBrace();
      return { param: name, op: "#len", args: [] };
    }
    const name = ident();
    if (!name) throw new EnvsubstError("unable to parse variable name");
    const c = src[pos];
    if (c === ":" && "=-?+".includes(src[pos + 1] ?? "x")) return defaults(name, src.slice(pos, pos + 2), 2);
    if (c === "=") return defaults(name, "=", 1);
    if (c === ":") {
      pos++;
      const args = [param((ch) => ch === ":" || ch === "}")];
      if (src[pos] === ":") {
        pos++;
        args.push(param((ch) => ch === "}"));
      }
      closeBrace();
      return { param: name, op: ":", args };
    }
    if (c === "," || c === "^") {
      const op = src[pos + 1] === c ? c + c : c;
      pos += op.length;
      closeBrace();
      return { param: name, op, args: [] };
    }
    if (c === "/") {
      const op = src[pos + 1] === "/" || src[pos + 1] === "#" || src[pos + 1] === "%" ? `/${src[pos + 1]}` : "/";
      pos += op.length;
      const args = [param((ch) => ch === "/" || ch === "}")];
      if (src[pos] === "/") {
        pos++;
        if (src[pos] !== "}") args.push(param((ch) => ch === "}"));
      }
      closeBrace();
      return { param: name, op, args };
    }
    if (c === "#" || c === "%") {
      const op = src[pos + 1] === c ? c + c : c;
      pos += op.length;
      const args = [param((ch) => ch === "}")];
      closeBrace();
      return { param: name, op, args };
    }
    closeBrace();
    return { param: name, op: "", args: [] };
  }

  function defaults(name: string, op: string, width: number): Node {
    pos += width;
    const args: Node[][] = [];
    while (pos < src.length && src[pos] !== "}") args.push(param((ch) => ch === "}"));
    closeBrace();
    return { param: name, op, args };
  }

  function ident(): string {
    const start = pos;
    while (pos < src.length && IDENT.test(src[pos]!)) pos++;
    return src.slice(start, pos);
  }

  while (pos < src.length) {
    const c = src[pos]!;
    if (c === "$" && src[pos + 1] === "$") {
      text += "$";
      pos += 2;
      continue;
    }
    if (c === "$" && src[pos + 1] === "{") {
      flush();
      pos += 2;
      nodes.push(func());
      continue;
    }
    text += c;
    pos++;
  }
  flush();
  return nodes;
}

function globRegex(pattern: string, anchored: "start" | "end", greedy: boolean): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") re += greedy ? ".*" : ".*?";
    else if (c === "?") re += ".";
    else if (c === "\\" && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return anchored === "start" ? new RegExp(`^${re}`, "s") : new RegExp(`${re}$`, "s");
}

function trimSuffix(v: string, pattern: string, longest: boolean): string {
  // Shortest suffix: try the latest start first; longest: the earliest.
  const re = globRegex(pattern, "start", true);
  const starts = [...Array(v.length + 1).keys()];
  for (const i of longest ? starts : starts.reverse()) {
    const m = re.exec(v.slice(i));
    if (m && m[0].length === v.length - i) return v.slice(0, i);
  }
  return v;
}

function trimPrefix(v: string, pattern: string, longest: boolean): string {
  const ends = [...Array(v.length + 1).keys()];
  const re = new RegExp(`${globRegex(pattern, "start", true).source}$`, "s");
  for (const i of longest ? ends.reverse() : ends) if (re.test(v.slice(0, i))) return v.slice(i);
  return v;
}

function apply(op: string, v: string, args: string[]): string {
  switch (op) {
    case "#len":
      return String(Buffer.byteLength(v));
    case ",":
      return v ? v[0]!.toLowerCase() + v.slice(1) : v;
    case ",,":
      return v.toLowerCase();
    case "^":
      return v ? v[0]!.toUpperCase() + v.slice(1) : v;
    case "^^":
      return v.toUpperCase();
    case "#":
      return trimPrefix(v, args[0] ?? "", false);
    case "##":
      return trimPrefix(v, args[0] ?? "", true);
    case "%":
      return trimSuffix(v, args[0] ?? "", false);
    case "%%":
      return trimSuffix(v, args[0] ?? "", true);
    case ":": {
      let start = Number.parseInt(args[0] ?? "", 10);
      if (!/^-?\d+$/.test((args[0] ?? "").trim())) return v;
      if (start < 0) start = Math.max(0, v.length + start);
      if (args.length === 1) return start < v.length ? v.slice(start) : "";
      if (!/^-?\d+$/.test((args[1] ?? "").trim())) return v;
      const length = Number.parseInt(args[1]!, 10);
      if (start + length >= v.length) return start < v.length ? v.slice(start) : "";
      return v.slice(start, start + length);
    }
    case "/":
      return args[0] === undefined ? v : v.replace(args[0], args[1] ?? "");
    case "//":
      return args[0] === undefined ? v : v.split(args[0]).join(args[1] ?? "");
    case "/#":
      return args.length === 2 && v.startsWith(args[0]!) ? args[1] + v.slice(args[0]!.length) : v;
    case "/%":
      return args.length === 2 && v.endsWith(args[0]!) ? v.slice(0, v.length - args[0]!.length) + args[1] : v;
    default:
      // `${v}` and every default operator: the value, or the joined default when it is empty.
      return v.length === 0 && args.length > 0 ? args.join("") : v;
  }
}

const DEFAULT_OPS = new Set(["-", "+", "=", "?", ":-", ":+", ":=", ":?"]);

/**
 * Substitutes `${...}` in `text` as Flux does. Not strict (Flux's default):
 * an unset variable is empty. Strict: an unset variable without a default is an error.
 */
export function envsubst(text: string, vars: ReadonlyMap<string, string>, strict = false): string {
  const evalNodes = (nodes: Node[]): string =>
    nodes
      .map((n) => {
        if ("text" in n) return n.text;
        const args = n.args.map(evalNodes);
        const exists = vars.has(n.param);
        if (strict && !exists && !DEFAULT_OPS.has(n.op)) throw new EnvsubstError(`variable not set (strict mode): "${n.param}"`);
        return apply(n.op, vars.get(n.param) ?? "", args);
      })
      .join("");
  return evalNodes(parse(text));
}

/** Flux checks every name before substituting; the message names the variable, never its value. */
export function checkVariableNames(vars: ReadonlyMap<string, string>): string | null {
  for (const name of vars.keys()) {
    if (!VAR_NAME.test(name)) return `'${name}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'`;
  }
  return null;
}

/**
 * The variables of a postBuild, in Flux's precedence: every `substituteFrom`
 * source in order (later ones win), then the inline `substitute` map on top.
 * Newlines are removed from every value, as Flux does.
 */
export function mergeVariables(sources: ReadonlyArray<Readonly<Record<string, string>>>, inline: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const vars = new Map<string, string>();
  for (const s of sources) for (const [k, v] of Object.entries(s)) vars.set(k, v.replace(/\n/g, ""));
  for (const [k, v] of Object.entries(inline ?? {})) vars.set(k, v.replace(/\n/g, ""));
  return vars;
}

export const SUBSTITUTE_KEY = "kustomize.toolkit.fluxcd.io/substitute";

/** Opted out of substitution with the Flux label or annotation `…/substitute: disabled`. */
export function substitutionDisabled(obj: Record<string, unknown>): boolean {
  const meta = (obj.metadata ?? {}) as { labels?: Record<string, unknown>; annotations?: Record<string, unknown> };
  return meta.labels?.[SUBSTITUTE_KEY] === "disabled" || meta.annotations?.[SUBSTITUTE_KEY] === "disabled";
}

/** spec.commonMetadata: set on every object's own metadata (not pod templates), overriding existing keys. */
export function withCommonMetadata(obj: Record<string, unknown>, common: { labels?: Record<string, string>; annotations?: Record<string, string> }): Record<string, unknown> {
  const meta = { ...((obj.metadata ?? {}) as Record<string, unknown>) };
  const labels = { ...((meta.labels ?? {}) as Record<string, string>), ...(common.labels ?? {}) };
  const annotations = { ...((meta.annotations ?? {}) as Record<string, string>), ...(common.annotations ?? {}) };
  if (Object.keys(labels).length > 0) meta.labels = labels;
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  return { ...obj, metadata: meta };
}
