// Which render settings an environment's desired state follows: the
// controller object's as read from the cluster, else driftwatch.yaml's, and
// Flux's postBuild variables read from the ConfigMaps and Secrets it names.
// Secret values exist here only in memory: they go into the render and
// nowhere else (no log line, no error message, no cache key).
import type { ApplicationEnvironment } from "@/lib/config";
import { hashBytes, HASH_PREFIX } from "@/lib/drift/secrets";
import { mergeVariables, type ControllerRender } from "@/lib/git";
import { argoRenderOptionsOf, fluxRenderSpecOf } from "@/lib/kube/render-settings";

type Obj = Record<string, unknown>;

/** A postBuild source that is required and cannot be read: the render cannot be what Flux renders. */
export class SubstituteSourceError extends Error {}

/** Reads one ConfigMap or Secret (null when it does not exist); other failures throw. */
export type ReadObject = (kind: "ConfigMap" | "Secret", namespace: string, name: string) => Promise<Obj | null>;

export interface ResolvedControllerRender {
  render: ControllerRender | undefined;
  /** Set when the controller renders another folder than driftwatch.yaml names (its spec.path / source.path). */
  pathMismatch?: string;
  /** Values that came from Secrets: wherever they land outside a Secret, they are masked before anything is stored. */
  secretValues: string[];
}

const normalisePath = (p: unknown) => (typeof p === "string" ? p.replace(/^\.\//, "").replace(/^\.$/, "").replace(/\/+$/, "") : null);

/** The folder the controller object renders, when it says. */
function controllerPath(type: "flux" | "argocd", obj: Obj | null, configured: string): string | null {
  const spec = (obj?.spec ?? {}) as Obj;
  if (type === "flux") return normalisePath(spec.path ?? "./");
  const sources = [spec.source, ...(Array.isArray(spec.sources) ? spec.sources : [])].filter((s): s is Obj => !!s && typeof s === "object");
  const paths = sources.map((s) => normalisePath(s.path)).filter((p): p is string => p !== null);
  return paths.includes(normalisePath(configured) ?? "") ? normalisePath(configured) : (paths[0] ?? null);
}

export async function controllerRenderFor(env: ApplicationEnvironment, controllerObject: Obj | null, read: ReadObject, sourceObject: Obj | null = null): Promise<ResolvedControllerRender> {
  const resolved = await resolve(env, controllerObject, read);
  const ignore = (sourceObject?.spec as { ignore?: unknown } | undefined)?.ignore;
  if (resolved.render?.type === "flux" && typeof ignore === "string" && ignore.trim()) resolved.render = { ...resolved.render, sourceIgnore: ignore };
  const type = env.controller?.type;
  if (type && controllerObject) {
    const theirs = controllerPath(type, controllerObject, env.source.path);
    const ours = normalisePath(env.source.path);
    if (theirs !== null && theirs !== ours) {
      resolved.pathMismatch = `the ${type === "flux" ? "Kustomization" : "Application"} renders "${theirs || "."}" but source.path is "${env.source.path}"; Driftwatch renders source.path`;
    }
  }
  return resolved;
}

async function resolve(env: ApplicationEnvironment, controllerObject: Obj | null, read: ReadObject): Promise<ResolvedControllerRender> {
  const type = env.controller?.type ?? (env.source.flux ? "flux" : env.source.argocd ? "argocd" : undefined);
  if (type === "argocd") {
    // Without the Application, its name is what driftwatch.yaml calls it; the rest of Argo CD's build variables stay empty.
    const settings = controllerObject ? argoRenderOptionsOf(controllerObject, env.source.path) : { ...(env.source.argocd ?? {}), env: { appName: env.controller?.name, sourcePath: env.source.path } };
    return { render: { type: "argocd", ...settings }, secretValues: [] };
  }
  if (type !== "flux") return { render: undefined, secretValues: [] };
  const spec = controllerObject ? fluxRenderSpecOf(controllerObject) : (env.source.flux ?? {});
  if (!spec.postBuild) return { render: { type: "flux", spec }, secretValues: [] };
  // Flux reads substituteFrom in the Kustomization's own namespace.
  const namespace = String((controllerObject?.metadata as { namespace?: unknown } | undefined)?.namespace ?? env.controller?.namespace ?? "flux-system");
  const sources: Array<Record<string, string>> = [];
  const secretValues = new Set<string>();
  for (const ref of spec.postBuild.substituteFrom ?? []) {
    const obj = await read(ref.kind, namespace, ref.name);
    if (!obj) {
      if (ref.optional) continue;
      throw new SubstituteSourceError(`substitute from '${ref.kind}/${ref.name}' error: ${ref.kind} ${namespace}/${ref.name} not found`);
    }
    const data = (obj.data ?? {}) as Record<string, unknown>;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== "string") continue;
      values[k] = ref.kind === "Secret" ? Buffer.from(v, "base64").toString("utf8") : v;
      if (ref.kind === "Secret") secretValues.add(values[k]!.replace(/\n/g, ""));
    }
    sources.push(values);
  }
  return {
    render: { type: "flux", spec, variables: mergeVariables(sources, spec.postBuild.substitute) },
    // Shorter values would mask unrelated text ("1", "on") and say little about a secret.
    secretValues: [...secretValues].filter((v) => v.length >= MIN_MASKED_LENGTH).sort((a, b) => b.length - a.length),
  };
}

const MIN_MASKED_LENGTH = 4;

/** Two sets of Secret-sourced values as one, in the order masking needs (longest first, short ones dropped). */
export function mergeSecretValues(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return [...a];
  return [...new Set([...a, ...b.map((v) => v.replace(/\n/g, ""))])].filter((v) => v.length >= MIN_MASKED_LENGTH).sort((x, y) => y.length - x.length);
}

type Path = Array<string | number>;

function secretDerivedMark(text: string, key: Buffer): string {
  return `(secret-derived ${hashBytes(Buffer.from(text, "utf8"), key).slice(HASH_PREFIX.length, HASH_PREFIX.length + 16)})`;
}

function mapStrings(node: unknown, at: Path, visit: (s: string, path: Path) => string): unknown {
  if (typeof node === "string") return visit(node, at);
  if (Array.isArray(node)) {
    const mapped = node.map((v, i) => mapStrings(v, [...at, i], visit));
    return mapped.some((m, i) => m !== node[i]) ? mapped : node;
  }
  if (node && typeof node === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const m = mapStrings(v, [...at, k], visit);
      if (m !== v) changed = true;
      out[k] = m;
    }
    return changed ? out : node;
  }
  return node;
}

/**
 * A desired object in which every string holding a Secret-sourced value is
 * replaced, whole, by a keyed hash of that string; and where those strings
 * were. A changed value still changes the hash; the value is never stored.
 * Unchanged objects are returned as they are.
 */
export function maskSecretSourced<T>(obj: T, values: readonly string[], key: Buffer): { object: T; paths: Path[] } {
  const paths: Path[] = [];
  if (values.length === 0) return { object: obj, paths };
  const object = mapStrings(obj, [], (text, at) => {
    if (!values.some((v) => text.includes(v))) return text;
    paths.push(at);
    return secretDerivedMark(text, key);
  }) as T;
  return { object, paths };
}

const MARK = /^\(secret-derived [0-9a-f]{16}\)$/;

/** Per desired object key, the paths of its masked strings. */
export function secretDerivedPaths(desired: Iterable<{ key: string; object: unknown }>): Map<string, Path[]> {
  const out = new Map<string, Path[]>();
  for (const d of desired) {
    const paths: Path[] = [];
    mapStrings(d.object, [], (text, at) => {
      if (MARK.test(text)) paths.push(at);
      return text;
    });
    if (paths.length > 0) out.set(d.key, paths);
  }
  return out;
}

/**
 * The live twin of a masked desired object: the strings at the same paths are
 * hashed the same way (so equal strings compare equal, and an old value the
 * Secret no longer holds is not stored either), and any current value
 * elsewhere is masked too.
 */
export function maskLiveSecretSourced<T>(obj: T, values: readonly string[], paths: readonly Path[], key: Buffer): T {
  if (values.length === 0 && paths.length === 0) return obj;
  const masked = new Set(paths.map((p) => JSON.stringify(p)));
  return mapStrings(obj, [], (text, at) => (masked.has(JSON.stringify(at)) || values.some((v) => text.includes(v)) ? secretDerivedMark(text, key) : text)) as T;
}
