// What Argo CD's repo server reads for an Application, reproduced: a
// directory source (`directory.recurse`, `include`/`exclude` globs) and the
// `kustomize` options it writes into the kustomization with `kustomize edit`
// (and, for patches, by rewriting the file) before building, with its build
// variables substituted where Argo CD substitutes them. Pure: file lists and text in, file lists and text out.
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

export interface ArgoDirectoryOptions {
  recurse?: boolean;
  include?: string;
  exclude?: string;
}

export interface ArgoKustomizeOptions {
  namePrefix?: string;
  nameSuffix?: string;
  /** `kustomize edit set image` arguments: `name=newName:tag`, `name:tag`, `name@digest`. */
  images?: string[];
  commonLabels?: Record<string, string>;
  commonAnnotations?: Record<string, string>;
  forceCommonLabels?: boolean;
  forceCommonAnnotations?: boolean;
  labelWithoutSelector?: boolean;
  labelIncludeTemplates?: boolean;
  namespace?: string;
  /** `kustomize edit set replicas name=count`; a count that is not an integer fails the render, as there. */
  replicas?: Array<{ name: string; count: number | string }>;
  /** Appended to the kustomization's own `patches` (there is no `kustomize edit` for them). */
  patches?: ArgoKustomizePatch[];
  /** `kustomize edit add component`, relative to the kustomization's folder. */
  components?: string[];
  ignoreMissingComponents?: boolean;
  /** Substitute Argo CD's build environment into commonAnnotations values too (labels and images always are). */
  commonAnnotationsEnvsubst?: boolean;
}

export interface ArgoKustomizePatch {
  path?: string;
  patch?: string;
  target?: { group?: string; version?: string; kind?: string; name?: string; namespace?: string; labelSelector?: string; annotationSelector?: string };
  options?: Record<string, boolean>;
}

/**
 * The Application-specific part of the build environment Argo CD gives kustomize
 * options (`${ARGOCD_APP_NAME}` and friends); the revision is the rendered commit's.
 */
export interface ArgoBuildEnv {
  appName?: string;
  /** The Application's destination namespace. */
  appNamespace?: string;
  project?: string;
  repoURL?: string;
  sourcePath?: string;
  targetRevision?: string;
}

/** Argo CD's newEnv: the variables kustomize options may name. */
export function argoBuildVariables(env: ArgoBuildEnv, revision: string): Record<string, string> {
  return {
    ARGOCD_APP_NAME: env.appName ?? "",
    ARGOCD_APP_NAMESPACE: env.appNamespace ?? "",
    ARGOCD_APP_PROJECT_NAME: env.project ?? "",
    ARGOCD_APP_REVISION: revision,
    ARGOCD_APP_REVISION_SHORT: revision.slice(0, 7),
    ARGOCD_APP_REVISION_SHORT_8: revision.slice(0, 8),
    ARGOCD_APP_SOURCE_REPO_URL: env.repoURL ?? "",
    ARGOCD_APP_SOURCE_PATH: env.sourcePath ?? "",
    ARGOCD_APP_SOURCE_TARGET_REVISION: env.targetRevision ?? "",
  };
}

const SHELL_SPECIAL = new Set(["*", "#", "$", "@", "!", "?", "-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
const isAlphaNum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

// Go's os.getShellName: the name after a `$` and how many characters it spans.
function shellName(s: string): [name: string, width: number] {
  if (s[0] === "{") {
    if (s.length > 2 && SHELL_SPECIAL.has(s[1]!) && s[2] === "}") return [s[1]!, 3];
    for (let i = 1; i < s.length; i++) {
      if (s[i] === "}") return i === 1 ? ["", 2] : [s.slice(1, i), i + 1];
    }
    return ["", 1];
  }
  if (SHELL_SPECIAL.has(s[0]!)) return [s[0]!, 1];
  let i = 0;
  while (i < s.length && isAlphaNum(s[i])) i++;
  return [s.slice(0, i), i];
}

/**
 * Argo CD's Env.Envsubst: Go's os.Expand over the build variables, `$$` for a
 * dollar, unknown names empty, bad `${` syntax dropped.
 */
export function argoEnvsubst(text: string, vars: Readonly<Record<string, string>>): string {
  let out = "";
  let from = 0;
  for (let j = 0; j < text.length; j++) {
    if (text[j] !== "$" || j + 1 >= text.length) continue;
    out += text.slice(from, j);
    const [name, width] = shellName(text.slice(j + 1));
    if (name === "" && width === 0) out += "$";
    else if (name !== "") out += name === "$" ? "$" : (vars[name] ?? "");
    j += width;
    from = j + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** What the edit needs beyond the kustomization: the build variables, and which paths exist (relative to the kustomization's folder). */
export interface KustomizeEditContext {
  variables?: Readonly<Record<string, string>>;
  exists?: (relativePath: string) => boolean;
}

/** Argo CD's manifest extensions when the extension filter is on (its default). */
const MANIFEST_FILE = /^.*\.(yaml|yml|json|jsonnet)$/;
export const SKIP_RENDERING_MARKER = "+argocd:skip-file-rendering";

/**
 * A glob as Argo CD compiles it (gobwas/glob without separators): `*` and `**`
 * cross `/`, `?` one character, `[abc]`, `[!abc]`, `[a-z]`, `{a,b}` alternatives
 * (nestable), `\` escapes. An uncompilable pattern matches nothing, as there.
 */
export function globToRegExp(pattern: string): RegExp | null {
  let i = 0;
  const group = (inBraces: boolean): string | null => {
    let out = "";
    const alternatives: string[] = [];
    while (i < pattern.length) {
      const c = pattern[i]!;
      if (inBraces && (c === "," || c === "}")) {
        alternatives.push(out);
        out = "";
        i++;
        if (c === "}") return `(?:${alternatives.join("|")})`;
        continue;
      }
      i++;
      if (c === "*") {
        while (pattern[i] === "*") i++;
        out += "[\\s\\S]*";
      } else if (c === "?") out += "[\\s\\S]";
      else if (c === "\\") {
        if (i >= pattern.length) return null;
        out += escapeRe(pattern[i++]!);
      } else if (c === "{") {
        const inner = group(true);
        if (inner === null) return null;
        out += inner;
      } else if (c === "[") {
        const close = pattern.indexOf("]", i + 1);
        if (close < 0) return null;
        let body = pattern.slice(i, close);
        i = close + 1;
        const negate = body.startsWith("!");
        if (negate) body = body.slice(1);
        if (!body) return null;
        out += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      } else out += escapeRe(c);
    }
    return inBraces ? null : out;
  };
  const body = group(false);
  return body === null ? null : new RegExp(`^${body}$`);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

export function globMatch(pattern: string, text: string): boolean {
  return globToRegExp(pattern)?.test(text) ?? false;
}

/**
 * The files of an Argo CD directory source under `dir` (repository-relative
 * paths, in Go's walk order): manifest extensions only, sub-folders only with
 * `recurse`, `exclude` then `include` matched against the path relative to
 * `dir`. Files carrying Argo CD's skip marker are dropped later, once read.
 */
export function selectDirectoryFiles(repoFiles: readonly string[], dir: string, opts: ArgoDirectoryOptions): string[] {
  const prefix = dir ? `${dir}/` : "";
  const exclude = opts.exclude ? globToRegExp(opts.exclude) : undefined;
  const include = opts.include ? globToRegExp(opts.include) : undefined;
  const picked: string[] = [];
  for (const file of repoFiles) {
    if (!file.startsWith(prefix)) continue;
    const rel = file.slice(prefix.length);
    if (!opts.recurse && rel.includes("/")) continue;
    if (!MANIFEST_FILE.test(rel.slice(rel.lastIndexOf("/") + 1))) continue;
    if (exclude?.test(rel)) continue;
    if (opts.include && !(include?.test(rel) ?? false)) continue;
    picked.push(file);
  }
  return picked.sort(walkOrder);
}

// filepath.Walk: a folder's entries in byte order, each folder's contents where its name falls.
function walkOrder(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  for (let k = 0; k < Math.min(pa.length, pb.length); k++) {
    if (pa[k] !== pb[k]) return Buffer.compare(Buffer.from(pa[k]!), Buffer.from(pb[k]!));
  }
  return pa.length - pb.length;
}

export function hasSkipMarker(text: string): boolean {
  return text.includes(SKIP_RENDERING_MARKER);
}

/** `kustomize edit set image` argument → the images entry it sets. */
export function parseImageArg(arg: string): { name: string; newName?: string; newTag?: string; digest?: string } {
  const eq = arg.indexOf("=");
  const name0 = eq >= 0 ? arg.slice(0, eq) : null;
  let rest = eq >= 0 ? arg.slice(eq + 1) : arg;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  // A colon before the last "/" is a registry port, not a tag.
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (name0 === null) return { name: rest, newTag: tag, digest };
  return { name: name0, newName: rest || undefined, newTag: tag, digest };
}

export type KustomizeEditResult = { ok: true; text: string } | { ok: false; message: string };

/**
 * The kustomization after Argo CD's `kustomize edit` commands, in the order it
 * runs them: nameprefix, namesuffix, image, replicas, label, annotation,
 * namespace; then its patches appended and `edit add component`.
 */
export function applyArgoKustomizeOptions(text: string, opts: ArgoKustomizeOptions, ctx: KustomizeEditContext = {}): KustomizeEditResult {
  const subst = (v: string) => argoEnvsubst(v, ctx.variables ?? {});
  let parsed: unknown;
  try {
    parsed = parseYaml(text) ?? {};
  } catch (e) {
    return { ok: false, message: `invalid kustomization: ${(e as Error).message.split("\n")[0]}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { ok: false, message: "invalid kustomization: not a mapping" };
  const kus = { ...(parsed as Record<string, unknown>) };
  if (opts.namePrefix) kus.namePrefix = opts.namePrefix;
  if (opts.nameSuffix) kus.nameSuffix = opts.nameSuffix;
  if (opts.images?.length) {
    const images = Array.isArray(kus.images) ? (kus.images as Array<Record<string, unknown>>).map((i) => ({ ...i })) : [];
    for (const arg of opts.images) {
      // Argo CD substitutes its build variables into each image (`app:${ARGOCD_APP_REVISION}`).
      const img = parseImageArg(subst(arg));
      const entry: Record<string, unknown> = { name: img.name };
      if (img.newName) entry.newName = img.newName;
      if (img.newTag !== undefined) entry.newTag = img.newTag;
      if (img.digest !== undefined) entry.digest = img.digest;
      const same = images.findIndex((i) => i.name === img.name);
      // `edit set image` replaces the entry of that name, keeping its newName when the argument gives none.
      if (same >= 0) {
        if (!img.newName && images[same]!.newName) entry.newName = images[same]!.newName;
        images[same] = entry;
      } else images.push(entry);
    }
    kus.images = images;
  }
  if (opts.replicas?.length) {
    const replicas = Array.isArray(kus.replicas) ? (kus.replicas as Array<Record<string, unknown>>).map((r) => ({ ...r })) : [];
    for (const r of opts.replicas) {
      const count = typeof r.count === "number" ? r.count : /^[+-]?\d+$/.test(r.count) ? Number(r.count) : NaN;
      if (!Number.isInteger(count)) return { ok: false, message: `expected integer value for count. Received: ${String(r.count)}` };
      // `edit set replicas` replaces the entry of that name, else appends one.
      const same = replicas.findIndex((x) => x.name === r.name);
      if (same >= 0) replicas[same] = { name: r.name, count };
      else replicas.push({ name: r.name, count });
    }
    kus.replicas = replicas;
  }
  const labels = Object.fromEntries(Object.entries(opts.commonLabels ?? {}).map(([k, v]) => [k, subst(v)]));
  if (Object.keys(labels).length > 0) {
    if (opts.labelWithoutSelector) {
      const list = Array.isArray(kus.labels) ? [...(kus.labels as unknown[])] : [];
      list.push({ pairs: labels, ...(opts.labelIncludeTemplates ? { includeTemplates: true } : {}) });
      kus.labels = list;
    } else {
      const existing = { ...((kus.commonLabels ?? {}) as Record<string, string>) };
      for (const [k, v] of Object.entries(labels)) {
        if (k in existing && !opts.forceCommonLabels) return { ok: false, message: `label ${k} already in kustomization file` };
        existing[k] = v;
      }
      kus.commonLabels = existing;
    }
  }
  if (opts.commonAnnotations && Object.keys(opts.commonAnnotations).length > 0) {
    const existing = { ...((kus.commonAnnotations ?? {}) as Record<string, string>) };
    for (const [k, v] of Object.entries(opts.commonAnnotations)) {
      if (k in existing && !opts.forceCommonAnnotations) return { ok: false, message: `annotation ${k} already in kustomization file` };
      existing[k] = opts.commonAnnotationsEnvsubst ? subst(v) : v;
    }
    kus.commonAnnotations = existing;
  }
  if (opts.namespace) kus.namespace = opts.namespace;
  if (opts.patches?.length) {
    if (kus.patches !== undefined && !Array.isArray(kus.patches)) return { ok: false, message: "expected 'patches' field in kustomization.yaml to be a list" };
    kus.patches = [...((kus.patches as unknown[] | undefined) ?? []), ...opts.patches.map(typedPatch)];
  }
  if (opts.components?.length) {
    const exists = ctx.exists ?? (() => true);
    const components = Array.isArray(kus.components) ? [...(kus.components as unknown[])] : [];
    for (const c of opts.components) {
      if (!exists(c)) {
        if (opts.ignoreMissingComponents) continue;
        return { ok: false, message: `component '${c}' has no match: it does not exist in the repository` };
      }
      // `edit add component` leaves one already listed alone.
      if (!components.includes(c)) components.push(c);
    }
    if (components.length > 0) kus.components = components;
  }
  return { ok: true, text: stringifyYaml(kus, { lineWidth: 0 }) };
}

// Argo CD marshals its typed patches: empty fields left out.
function typedPatch(p: ArgoKustomizePatch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.path) out.path = p.path;
  if (p.patch) out.patch = p.patch;
  if (p.target) {
    const target = Object.fromEntries(Object.entries(p.target).filter(([, v]) => typeof v === "string" && v !== ""));
    out.target = target;
  }
  if (p.options && Object.keys(p.options).length > 0) out.options = p.options;
  return out;
}

/** Whether any kustomize option is set (an unchanged kustomization needs no rewrite). */
export function hasArgoKustomizeOptions(opts: ArgoKustomizeOptions | undefined): boolean {
  if (!opts) return false;
  return Boolean(
    opts.namePrefix ||
      opts.nameSuffix ||
      opts.images?.length ||
      opts.namespace ||
      Object.keys(opts.commonLabels ?? {}).length ||
      Object.keys(opts.commonAnnotations ?? {}).length ||
      opts.replicas?.length ||
      opts.patches?.length ||
      opts.components?.length,
  );
}
