// The controller objects of an environment of many applications, as one
// picture: which objects fail and which applications each holds up, which are
// suspended, missing or not ready. The environment page's Controller panel and
// the convergence alerts group failures the same way (one GitRepository
// feeding eight Kustomizations is one problem, not eight). Pure.
import type { ControllerCondition, ControllerStatus } from "@/lib/kube/controller-status";

export interface FailingObject {
  /** "GitRepository/flux-system/flux-system": the object the failure is reported on. */
  object: string;
  failure: ControllerCondition;
  /** The applications it holds up, by name. */
  applications: string[];
}

/**
 * Applications grouped by the object whose failure holds them up, in the
 * order the objects are first met. `failureOf` says which failure counts (the
 * alerts take only sustained ones; the page every current one); null: none.
 */
export function groupByFailingObject<A extends { name: string }>(apps: readonly A[], failureOf: (app: A) => ControllerCondition | null): FailingObject[] {
  const groups = new Map<string, FailingObject>();
  for (const app of apps) {
    const failure = failureOf(app);
    if (!failure) continue;
    const group = groups.get(failure.object) ?? { object: failure.object, failure, applications: [] };
    group.applications.push(app.name);
    groups.set(failure.object, group);
  }
  return [...groups.values()].map((g) => ({ ...g, applications: [...g.applications].sort() }));
}

/** "Kustomization/flux-system/apps": how conditions name an application's own controller object. */
export function controllerObjectOf(c: Pick<ControllerStatus, "type" | "kind" | "namespace" | "name">): string {
  return `${c.kind ?? (c.type === "flux" ? "Kustomization" : "Application")}/${c.namespace}/${c.name}`;
}

/** Listed worst first in this order; a ready object is only counted. */
export const CONTROLLER_OBJECT_STATES = ["failing", "not-found", "not-ready", "suspended"] as const;
export type ControllerObjectState = (typeof CONTROLLER_OBJECT_STATES)[number];

export interface ControllerObjectRow {
  object: string;
  state: ControllerObjectState;
  /** Why: the failing condition, or a not-ready object's own Ready/Healthy condition; null when none says. */
  condition: ControllerCondition | null;
  suspendedBy: ControllerStatus["suspendedBy"];
  /** The applications it holds up (failing) or runs, by name. */
  applications: string[];
}

export interface ControllerRollup {
  /** Distinct controller objects: each application's own, and each failing object they share (a source). */
  objects: number;
  ready: number;
  failing: number;
  suspended: number;
  /** Not found in the cluster, or not (yet) reporting Ready. */
  notReady: number;
  /** Every object that is not ready, worst first: failing ones holding up the most applications, longest failing, first. */
  attention: ControllerObjectRow[];
}

const since = (c: ControllerCondition | null) => (c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.POSITIVE_INFINITY);

/**
 * The roll-up of an environment's applications' controllers. An object that
 * fails is failing however it is otherwise (a suspended Kustomization whose
 * GitRepository fails is listed under the GitRepository, and as suspended on
 * its own). A Kustomization that still reports Ready while its source fails
 * counts as ready: the source is the failing object, naming it.
 */
export function controllerRollup(apps: readonly { name: string; controller: ControllerStatus | null }[]): ControllerRollup {
  const failing = groupByFailingObject(apps, (a) => (a.controller?.found ? a.controller.failure : null));
  const failingByObject = new Map(failing.map((f) => [f.object, f]));
  const rows: ControllerObjectRow[] = failing.map((f) => ({ object: f.object, state: "failing", condition: f.failure, suspendedBy: null, applications: f.applications }));
  let ready = 0;
  const own = new Map<string, { controller: ControllerStatus; applications: string[] }>();
  for (const a of apps) {
    if (!a.controller) continue;
    const object = controllerObjectOf(a.controller);
    const entry = own.get(object) ?? { controller: a.controller, applications: [] };
    entry.applications.push(a.name);
    own.set(object, entry);
  }
  for (const [object, { controller: c, applications }] of own) {
    if (failingByObject.has(object)) continue;
    const names = [...applications].sort();
    const ownReady = c.conditions.find((x) => x.object === object && (x.type === "Ready" || x.type === "Healthy")) ?? null;
    if (!c.found) rows.push({ object, state: "not-found", condition: null, suspendedBy: null, applications: names });
    else if (c.suspended) rows.push({ object, state: "suspended", condition: null, suspendedBy: c.suspendedBy, applications: names });
    else if (c.ready === "True") ready++;
    else rows.push({ object, state: "not-ready", condition: ownReady, suspendedBy: null, applications: names });
  }
  const rank = (s: ControllerObjectState) => CONTROLLER_OBJECT_STATES.indexOf(s);
  rows.sort(
    (a, b) =>
      rank(a.state) - rank(b.state) ||
      b.applications.length - a.applications.length ||
      since(a.condition) - since(b.condition) ||
      (a.object < b.object ? -1 : a.object > b.object ? 1 : 0),
  );
  const count = (s: ControllerObjectState) => rows.filter((r) => r.state === s).length;
  return {
    objects: ready + rows.length,
    ready,
    failing: count("failing"),
    suspended: count("suspended"),
    notReady: count("not-found") + count("not-ready"),
    attention: rows,
  };
}
