// What Argo CD's repo server reads for an Application, reproduced: a
// directory source (`directory.recurse`, `include`/`exclude` globs) and the
// `kustomize` options it writes into the kustomization with `kustomize edit`
// before building. Pure: file lists and text in, file lists and text out.
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
 * runs them: nameprefix, namesuffix, image, label, annotation, namespace.
 */
export function applyArgoKustomizeOptions(text: string, opts: ArgoKustomizeOptions): KustomizeEditResult {
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
      const img = parseImageArg(arg);
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
  if (opts.commonLabels && Object.keys(opts.commonLabels).length > 0) {
    if (opts.labelWithoutSelector) {
      const labels = Array.isArray(kus.labels) ? [...(kus.labels as unknown[])] : [];
      labels.push({ pairs: { ...opts.commonLabels }, ...(opts.labelIncludeTemplates ? { includeTemplates: true } : {}) });
      kus.labels = labels;
    } else {
      const existing = { ...((kus.commonLabels ?? {}) as Record<string, string>) };
      for (const [k, v] of Object.entries(opts.commonLabels)) {
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
      existing[k] = v;
    }
    kus.commonAnnotations = existing;
  }
  if (opts.namespace) kus.namespace = opts.namespace;
  return { ok: true, text: stringifyYaml(kus, { lineWidth: 0 }) };
}

/** Whether any kustomize option is set (an unchanged kustomization needs no rewrite). */
export function hasArgoKustomizeOptions(opts: ArgoKustomizeOptions | undefined): boolean {
  if (!opts) return false;
  return Boolean(
    opts.namePrefix || opts.nameSuffix || opts.images?.length || opts.namespace || Object.keys(opts.commonLabels ?? {}).length || Object.keys(opts.commonAnnotations ?? {}).length,
  );
}
