// The controller objects of an environment of many applications, as one
// picture: which objects fail and which applications each holds up, which are
// suspended, missing or not ready. The environment page's Controller panel and
// the convergence alerts group failures the same way (one GitRepository
// feeding eight Kustomizations is one problem, not eight; so is a repository
// four Argo CD Applications cannot read). Pure.
import type { ControllerCondition, ControllerStatus } from "@/lib/kube/controller-status";

export interface FailingObject {
  /**
   * What the failure is, stable while the applications it holds up change:
   * the object for a failing controller object, `Repository/<normalised URL>`
   * for a repository several Argo CD Applications cannot read. Alerts take
   * their fingerprint from it.
   */
  key: string;
  /** "GitRepository/flux-system/flux-system": the object the failure is reported on; "Repository/<URL>" for a repository. */
  object: string;
  failure: ControllerCondition;
  /** The applications it holds up, by name. */
  applications: string[];
  /** The repository's URL, as the first application met names it, when the failure is a repository's. */
  repository?: string;
}

/** When a failure began; one that does not say sorts last. */
const since = (c: ControllerCondition | null) => (c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.POSITIVE_INFINITY);

/** An application as the grouping sees it: its name, and its sources' repository URLs in its controller's order. */
export interface GroupedApplication {
  name: string;
  sourceUrls?: readonly string[];
}

/**
 * Applications grouped by the object whose failure holds them up, in the
 * order the objects are first met. `failureOf` says which failure counts (the
 * alerts take only sustained ones; the page every current one); null: none.
 * Argo CD reports a repository it cannot read as a ComparisonError on every
 * Application of that repository, so those group by the repository (see
 * failingRepositoryOf): one rotated credential is one problem, not one per
 * Application.
 */
export function groupByFailingObject<A extends GroupedApplication>(apps: readonly A[], failureOf: (app: A) => ControllerCondition | null): FailingObject[] {
  const groups = new Map<string, FailingObject>();
  for (const app of apps) {
    const failure = failureOf(app);
    if (!failure) continue;
    const repository = failingRepositoryOf(failure, app.sourceUrls ?? []);
    if (repository === null) {
      const group = groups.get(failure.object) ?? { key: failure.object, object: failure.object, failure, applications: [] };
      group.applications.push(app.name);
      groups.set(failure.object, group);
      continue;
    }
    const key = `Repository/${repositoryKey(repository)}`;
    const object = `Repository/${repository}`;
    const own = { ...failure, object, message: failure.message && withoutSourcePosition(failure.message) };
    const group = groups.get(key) ?? { key, object, failure: own, applications: [], repository };
    // The failure the repository has had longest speaks for it, so its "since" does not move while Applications join.
    if (since(own) < since(group.failure)) group.failure = { ...own, object: group.object };
    group.applications.push(app.name);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({ ...g, applications: [...g.applications].sort() }));
}

// Reading the repository failed: its credential, its existence, or reaching it (git and go-git as Argo CD's repo-server words them).
const REPOSITORY_FAILURE =
  /authentication required|authentication failed|could not read (?:username|password)|permission denied \(publickey|unable to authenticate|repository not found|repository not accessible|failed to list refs|ssh: handshake failed|knownhosts|host key|could not resolve host|no such host|connection refused|i\/o timeout|x509:|401 unauthorized|403 forbidden/i;
// What one Application asks of the repository failed: its path, its revision, its render (a remote base's fetch included).
const APPLICATION_FAILURE = /app path does not exist|to a commit sha|kustomize build|helm template|yaml:|error converting yaml/i;
// Argo CD's controller names which of the Application's sources failed ("failed to generate manifest for source 2 of 3: ").
const SOURCE_POSITION = /\bfailed to [^:]*? for source (\d+) of (\d+): /i;

/**
 * The repository URL an Argo CD Application's failing condition says cannot
 * be read, from its sources' URLs in spec order; null when the failure is
 * the Application's own (its path, revision or render) or is not about a
 * repository, or when which of several repositories failed cannot be told.
 */
export function failingRepositoryOf(failure: Pick<ControllerCondition, "object" | "type" | "message">, sourceUrls: readonly string[]): string | null {
  const message = failure.message ?? "";
  if (!failure.object.startsWith("Application/") || failure.type !== "ComparisonError") return null;
  if (APPLICATION_FAILURE.test(message) || !REPOSITORY_FAILURE.test(message)) return null;
  const position = SOURCE_POSITION.exec(message);
  if (position && Number(position[2]) === sourceUrls.length) return sourceUrls[Number(position[1]) - 1] ?? null;
  const named = sourceUrls.find((url) => message.includes(url.replace(/\/+$/, "")));
  if (named) return named;
  return new Set(sourceUrls.map(repositoryKey)).size === 1 ? sourceUrls[0]! : null;
}

/** One repository however its Applications spell it (Argo CD matches repositories case-insensitively, with or without ".git" or a trailing slash). */
export function repositoryKey(url: string): string {
  return url.trim().toLowerCase().replace(/\/+$/, "").replace(/\.git$/, "");
}

/** The message without the per-Application position of the failing source, so every Application's reads alike. */
function withoutSourcePosition(message: string): string {
  return message.replace(SOURCE_POSITION, "");
}

/** The repository URLs of an application's stored sources (Application.sources), in order; tolerant of what older rows hold. */
export function sourceUrlsOf(sources: unknown): string[] {
  return Array.isArray(sources) ? sources.flatMap((s) => (s && typeof s === "object" && typeof (s as { url?: unknown }).url === "string" ? [(s as { url: string }).url] : [])) : [];
}

/** "Kustomization/flux-system/apps": how conditions name an application's own controller object. */
export function controllerObjectOf(c: Pick<ControllerStatus, "type" | "kind" | "namespace" | "name">): string {
  return `${c.kind ?? (c.type === "flux" ? "Kustomization" : "Application")}/${c.namespace}/${c.name}`;
}

/** An entry's object as kind, namespace and name; a repository's name is its URL (which has slashes of its own), its namespace empty. */
export function objectParts(object: string): { kind: string; namespace: string; name: string } {
  const [kind = "", namespace = "", name = ""] = object.split("/");
  return kind === "Repository" ? { kind, namespace: "", name: object.slice("Repository/".length) } : { kind, namespace, name };
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
  /** Distinct controller objects: each application's own, and each failing object they share (a source; not a repository Argo CD Applications cannot read). */
  objects: number;
  ready: number;
  failing: number;
  suspended: number;
  /** Not found in the cluster, or not (yet) reporting Ready. */
  notReady: number;
  /** Every object that is not ready, worst first: failing ones holding up the most applications, longest failing, first. */
  attention: ControllerObjectRow[];
}

/**
 * The roll-up of an environment's applications' controllers. An object that
 * fails is failing however it is otherwise (a suspended Kustomization whose
 * GitRepository fails is listed under the GitRepository, and as suspended on
 * its own). A Kustomization that still reports Ready while its source fails
 * counts as ready: the source is the failing object, naming it. Argo CD
 * Applications that cannot read their repository each fail on their own
 * object: each counts as a failing object, and the repository is their one
 * entry in the list (it is not a controller object, so not counted as one).
 */
export function controllerRollup(apps: readonly (GroupedApplication & { controller: ControllerStatus | null })[]): ControllerRollup {
  const failing = groupByFailingObject(apps, (a) => (a.controller?.found ? a.controller.failure : null));
  const failingObjects = new Set(failing.map((f) => f.object));
  const heldUpByRepository = new Set(failing.flatMap((f) => (f.repository === undefined ? [] : f.applications)));
  const rows: ControllerObjectRow[] = failing.map((f) => ({ object: f.object, state: "failing", condition: f.failure, suspendedBy: null, applications: f.applications }));
  let ready = 0;
  let failingApplications = 0;
  const own = new Map<string, { controller: ControllerStatus; applications: string[] }>();
  for (const a of apps) {
    if (!a.controller) continue;
    const object = controllerObjectOf(a.controller);
    const entry = own.get(object) ?? { controller: a.controller, applications: [] };
    entry.applications.push(a.name);
    own.set(object, entry);
  }
  for (const [object, { controller: c, applications }] of own) {
    if (failingObjects.has(object)) continue;
    if (applications.some((a) => heldUpByRepository.has(a))) {
      failingApplications++;
      continue;
    }
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
  const repositories = failing.filter((f) => f.repository !== undefined).length;
  return {
    objects: ready + rows.length - repositories + failingApplications,
    ready,
    failing: count("failing") - repositories + failingApplications,
    suspended: count("suspended"),
    notReady: count("not-found") + count("not-ready"),
    attention: rows,
  };
}
