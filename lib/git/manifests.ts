// From manifest text to Kubernetes objects: multi-document YAML, JSON, `*List`
// expansion, default namespaces, duplicates. Pure functions over strings, so
// plain rendering and kustomize output share them.
import { KUBERNETES_YAML_SCHEMA, KUSTOMIZE_YAML_SCHEMA, parseKubernetesYaml, type YamlDocument, type YamlResult } from "./k8s-yaml";
import { apiGroup, clusterScopedFromCrds, isClusterScoped } from "./cluster-scoped";

export interface RenderedObject {
  object: Record<string, unknown>;
  /** Repository-relative file the object came from (for kustomize: the kustomization file). */
  sourcePath: string;
}

export interface RenderProblem {
  path: string;
  line?: number;
  message: string;
  severity: "error" | "warning";
}

/** `reader`: whose YAML rules apply — kubectl's (and Argo CD's), or kustomize's (what Flux applies). */
export function parseManifestText(file: string, text: string, reader: "kubectl" | "kustomize" = "kubectl"): YamlResult {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/\.json$/i.test(file)) return parseJson(src);
  return parseKubernetesYaml(src, reader === "kustomize" ? KUSTOMIZE_YAML_SCHEMA : KUBERNETES_YAML_SCHEMA);
}

function parseJson(src: string): YamlResult {
  if (src.trim() === "") return { ok: true, docs: [] };
  try {
    return { ok: true, docs: [{ value: JSON.parse(src), index: 0, line: 1, range: [0, src.length] }] };
  } catch (e) {
    // V8's message often has no position; find it ourselves (only on failure).
    const at = jsonErrorOffset(src);
    const found = at === null ? "" : src[at] === undefined ? "end of file" : JSON.stringify(src[at]);
    return {
      ok: false,
      line: at === null ? undefined : lineOf(src, at),
      message: found ? `invalid JSON: unexpected ${found}` : `invalid JSON: ${(e as Error).message}`,
    };
  }
}

function lineOf(src: string, offset: number): number {
  let line = 1;
  for (let i = src.indexOf("\n"); i >= 0 && i < offset; i = src.indexOf("\n", i + 1)) line++;
  return line;
}

/** Offset of the first JSON syntax error, or null if the text is valid JSON. */
export function jsonErrorOffset(src: string): number | null {
  let i = 0;
  class Stop {
    constructor(readonly at: number) {}
  }
  const ws = () => {
    while (i < src.length && " \t\n\r".includes(src[i]!)) i++;
  };
  const fail = (): never => {
    throw new Stop(i);
  };
  const lit = (word: string) => {
    for (const ch of word) {
      if (src[i] !== ch) fail();
      i++;
    }
  };
  const str = () => {
    i++;
    for (;;) {
      const ch = src[i];
      if (ch === undefined || ch < " ") fail();
      if (ch === '"') return void i++;
      if (ch === "\\") {
        i++;
        if (src[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(src.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if ('"\\/bfnrt'.includes(src[i] ?? "x")) i++;
        else fail();
      } else i++;
    }
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i, i + 400));
    if (!m || !m[0] || m[0] === "-") fail();
    i += m![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail();
    ws();
    const ch = src[i];
    if (ch === "{") {
      i++;
      ws();
      if (src[i] === "}") return void i++;
      for (;;) {
        ws();
        if (src[i] !== '"') fail();
        str();
        ws();
        if (src[i] !== ":") fail();
        i++;
        value(depth + 1);
        ws();
        if (src[i] === ",") i++;
        else if (src[i] === "}") return void i++;
        else fail();
      }
    }
    if (ch === "[") {
      i++;
      ws();
      if (src[i] === "]") return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (src[i] === ",") i++;
        else if (src[i] === "]") return void i++;
        else fail();
      }
    }
    if (ch === '"') return str();
    if (ch === "t") return lit("true");
    if (ch === "f") return lit("false");
    if (ch === "n") return lit("null");
    return num();
  };
  try {
    value(0);
    ws();
    return i < src.length ? i : null;
  } catch (e) {
    if (e instanceof Stop) return e.at;
    throw e;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function metadataOf(o: Record<string, unknown>): Record<string, unknown> | null {
  return isRecord(o.metadata) ? o.metadata : null;
}

export function isKubernetesObject(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v)) return false;
  const meta = metadataOf(v);
  return (
    typeof v.apiVersion === "string" &&
    v.apiVersion !== "" &&
    typeof v.kind === "string" &&
    v.kind !== "" &&
    typeof meta?.name === "string" &&
    meta.name !== ""
  );
}

/** The items of a `*List` document (`v1/List`, `ConfigMapList`, …), or null. */
function listItems(v: unknown): unknown[] | null {
  if (!isRecord(v)) return null;
  const r: Record<string, unknown> = v;
  if (isKubernetesObject(v)) return null;
  return typeof r.apiVersion === "string" && typeof r.kind === "string" && r.kind.endsWith("List") && Array.isArray(r.items)
    ? r.items
    : null;
}

/**
 * Turns the documents of one file into objects: `*List` documents are
 * expanded, anything that is not a Kubernetes object is skipped with a
 * warning (kubectl would refuse it; Git may hold other YAML beside manifests).
 */
export function objectsFromDocuments(sourcePath: string, docs: readonly YamlDocument[], problems: RenderProblem[]): RenderedObject[] {
  const out: RenderedObject[] = [];
  const base = sourcePath.split("/").pop() ?? sourcePath;
  for (const doc of docs) {
    if (doc.value === null || doc.value === undefined) continue;
    const items = listItems(doc.value);
    if (items) {
      items.forEach((item, i) => {
        if (isKubernetesObject(item)) out.push({ object: item, sourcePath });
        else
          problems.push({
            path: sourcePath,
            line: doc.line,
            severity: "warning",
            message: `item ${i} of the list in document ${doc.index + 1} is not a Kubernetes object (needs apiVersion, kind and metadata.name); skipped`,
          });
      });
      continue;
    }
    if (isKubernetesObject(doc.value)) {
      out.push({ object: doc.value, sourcePath });
      continue;
    }
    const v = doc.value;
    const kustomization =
      /^kustomization\.ya?ml$/i.test(base) ||
      (isRecord(v) && v.kind === "Kustomization" && typeof v.apiVersion === "string" && v.apiVersion.startsWith("kustomize.config.k8s.io"));
    problems.push({
      path: sourcePath,
      line: doc.line,
      severity: "warning",
      message: kustomization
        ? "kustomization file ignored in plain mode; set source.render: kustomize to build it"
        : `document ${doc.index + 1} is not a Kubernetes object (needs apiVersion, kind and metadata.name); skipped`,
    });
  }
  return out;
}

export function objectKey(o: Record<string, unknown>): string {
  const meta = metadataOf(o);
  const ns = typeof meta?.namespace === "string" ? meta.namespace : "";
  return `${apiGroup(String(o.apiVersion ?? ""))}/${String(o.kind ?? "")}/${ns}/${String(meta?.name ?? "")}`;
}

const namespacedCopies = new WeakMap<object, { namespace: string | undefined; object: Record<string, unknown> }>();

/**
 * `o` with its metadata.namespace set (or removed: undefined), as a copy. For
 * a frozen (shared) object the copy is made once per namespace and handed out
 * again: a render that reuses a file's documents then gives the very objects
 * of the last render, and what the collector keeps per object (content
 * hashes, hashed secrets: lib/collector/run-memo.ts) is reused with them.
 */
function withNamespace(o: Record<string, unknown>, meta: Record<string, unknown>, namespace: string | undefined): Record<string, unknown> {
  const made = namespacedCopies.get(o);
  if (made && made.namespace === namespace) return made.object;
  let metadata: Record<string, unknown>;
  if (namespace === undefined) {
    const { namespace: _removed, ...rest } = meta;
    metadata = rest;
  } else metadata = { ...meta, namespace };
  const object = { ...o, metadata };
  if (Object.isFrozen(o)) namespacedCopies.set(o, { namespace, object: deepFreeze(object) });
  return object;
}

/**
 * Gives namespaced objects without a namespace the environment's default,
 * strips the namespace from cluster-scoped ones (the API server ignores it, so
 * keeping it would make the desired key differ from the live one), then drops
 * duplicates: the first definition wins and both files are named.
 * Copies an object (and its metadata) it changes, never writes into it: plain
 * renders pass in frozen documents that later renders reuse (ParseCache).
 */
export function finaliseObjects(objects: RenderedObject[], defaultNamespace: string, problems: RenderProblem[]): RenderedObject[] {
  const crdScoped = clusterScopedFromCrds(objects.map((o) => o.object));
  const seen = new Map<string, RenderedObject>();
  const out: RenderedObject[] = [];
  for (const r of objects) {
    const o = r.object;
    const meta = metadataOf(o);
    if (!meta) continue;
    const kind = String(o.kind);
    let rendered = r;
    if (isClusterScoped(String(o.apiVersion), kind, crdScoped)) {
      if (meta.namespace !== undefined) {
        if (meta.namespace) {
          problems.push({
            path: r.sourcePath,
            severity: "warning",
            message: `${kind} ${String(meta.name)} is cluster-scoped; its metadata.namespace "${String(meta.namespace)}" is ignored`,
          });
        }
        rendered = { ...r, object: withNamespace(o, meta, undefined) };
      }
    } else if (typeof meta.namespace !== "string" || meta.namespace === "") {
      rendered = { ...r, object: withNamespace(o, meta, defaultNamespace) };
    }
    const key = objectKey(rendered.object);
    const first = seen.get(key);
    if (first) {
      problems.push({
        path: r.sourcePath,
        severity: "error",
        message: `duplicate object ${key}: defined in ${first.sourcePath} and in ${r.sourcePath}; the one in ${first.sourcePath} is used`,
      });
      continue;
    }
    seen.set(key, rendered);
    out.push(rendered);
  }
  return out;
}

/** Read-only from here on: rendered results are shared through the cache. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}
