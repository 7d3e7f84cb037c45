// Object keys are `${group}/${kind}/${namespace}/${name}` with "" for the core
// group and for cluster-scoped objects. In URLs an empty segment cannot
// survive, so it is spelled "_" — neither a group nor a namespace can be "_".

export interface KeyParts {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

const SEGMENT = /^[^/]+$/;

export function keyOf(parts: KeyParts): string {
  return `${parts.group}/${parts.kind}/${parts.namespace}/${parts.name}`;
}

export function partsOfKey(key: string): KeyParts | null {
  const p = key.split("/");
  if (p.length !== 4 || !p[1] || !p[3]) return null;
  return { group: p[0] ?? "", kind: p[1], namespace: p[2] ?? "", name: p[3] };
}

/** URL segments (already decoded) → key; null when they cannot name an object. */
export function keyFromSegments(segments: readonly string[]): string | null {
  if (segments.length !== 4 || !segments.every((s) => SEGMENT.test(s))) return null;
  const [group, kind, namespace, name] = segments as [string, string, string, string];
  if (kind === "_" || name === "_") return null;
  return keyOf({ group: group === "_" ? "" : group, kind, namespace: namespace === "_" ? "" : namespace, name });
}

/** Key → "group/kind/namespace/name" path with "_" placeholders, each segment URI-encoded. */
export function segmentsOfKey(key: string): string {
  const p = partsOfKey(key);
  if (!p) return key.split("/").map(encodeURIComponent).join("/");
  return [p.group || "_", p.kind, p.namespace || "_", p.name].map(encodeURIComponent).join("/");
}

export function objectPagePath(environment: string, key: string): string {
  return `/environments/${encodeURIComponent(environment)}/objects/${segmentsOfKey(key)}`;
}

/** An application's page; its name (`namespace/name` for a discovered one) is one path segment. */
export function applicationPagePath(environment: string, application: string): string {
  return `/environments/${encodeURIComponent(environment)}/applications/${encodeURIComponent(application)}`;
}

export function objectApiPath(environment: string, key: string): string {
  return `/api/environments/${encodeURIComponent(environment)}/objects/${segmentsOfKey(key)}`;
}

/** "Deployment shop/api" or "ClusterRole admin": how people name objects. */
export function objectLabel(key: string): string {
  const p = partsOfKey(key);
  if (!p) return key;
  return `${p.kind} ${p.namespace ? `${p.namespace}/` : ""}${p.name}`;
}
