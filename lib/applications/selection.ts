// Which controller objects an environment takes: by namespace, name globs and
// label selector, and on an Argo CD hub by the destination an Application
// deploys to. Pure.
import { globToRegExp } from "@/lib/drift";
import { matchesLabels, parseLabelSelector, type LabelSelector } from "./label-selector";
import type { ArgoDestination } from "./discovery-config";

export interface ObjectIdentity {
  namespace: string;
  name: string;
  labels: Record<string, string>;
}

export interface Selection {
  /** Empty: every namespace. */
  namespaces: string[];
  include: string[];
  exclude: string[];
  labelSelector?: string;
}

export type Selector = (o: ObjectIdentity) => boolean;

function globMatcher(patterns: string[]): ((o: ObjectIdentity) => boolean) | null {
  if (patterns.length === 0) return null;
  const compiled = patterns.map((p) => ({ qualified: p.includes("/"), re: globToRegExp(p) }));
  return (o) => compiled.some((c) => c.re.test(c.qualified ? `${o.namespace}/${o.name}` : o.name));
}

export function compileSelection(selection: Selection): Selector {
  const namespaces = new Set(selection.namespaces);
  const include = globMatcher(selection.include);
  const exclude = globMatcher(selection.exclude);
  const labels: LabelSelector = parseLabelSelector(selection.labelSelector ?? "");
  return (o) =>
    (namespaces.size === 0 || namespaces.has(o.namespace)) &&
    (include === null || include(o)) &&
    !(exclude?.(o) ?? false) &&
    matchesLabels(labels, o.labels);
}

// Argo CD names the cluster it runs in both ways.
const IN_CLUSTER_NAME = "in-cluster";
const IN_CLUSTER_SERVER = "https://kubernetes.default.svc";

function canonicalServer(server: string | undefined): string | undefined {
  return server?.trim().replace(/\/+$/, "").toLowerCase() || undefined;
}

/** Whether an Application's `spec.destination` is the cluster an environment's config names. */
export function destinationMatches(wanted: ArgoDestination, actual: { name?: string; server?: string }): boolean {
  const wantedServer = canonicalServer(wanted.server ?? (wanted.name === IN_CLUSTER_NAME ? IN_CLUSTER_SERVER : undefined));
  const actualServer = canonicalServer(actual.server ?? (actual.name === IN_CLUSTER_NAME ? IN_CLUSTER_SERVER : undefined));
  if (wanted.name && actual.name && wanted.name === actual.name) return true;
  return wantedServer !== undefined && wantedServer === actualServer;
}
