// A demo Argo CD application controller through the API only: for every
// Application in its namespace (an app-of-apps root first, so the children it
// applies are reconciled in the same round) it compares the rendered path with
// live objects, reports status.sync and health, and — while the automated
// policy is on and skip-reconcile is not set — syncs with server-side apply as
// argocd-controller, marking every object with its tracking id and recording
// operationState and history.
import { renderManifests, isClusterScoped } from "@/lib/git";
import { runGit } from "@/lib/git/exec";
import { compareObject, createCompareContext, type KubeObject } from "@/lib/drift";
import { applyOrder, getObj, listObjs, patchStatus, serverSideApply, type DemoKube } from "./kube-writer";

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

export const ARGO_NS = "argocd";
const APP_API = "argoproj.io/v1alpha1";
const TRACKING = "argocd.argoproj.io/tracking-id";

export interface ArgoSetup {
  application: string;
  path: string;
  branch: string;
  repoUrl: string;
}

export function argoObjects(s: ArgoSetup): Obj[] {
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ARGO_NS } },
    {
      apiVersion: APP_API,
      kind: "Application",
      metadata: { name: s.application, namespace: ARGO_NS },
      spec: {
        project: "default",
        source: { repoURL: s.repoUrl, path: s.path, targetRevision: s.branch },
        destination: { server: "https://kubernetes.default.svc", namespace: "shop" },
        syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ["ServerSideApply=true"] },
      },
    },
  ];
}

function trackingId(app: string, o: Obj): string {
  const meta = rec(o.metadata);
  const apiVersion = String(o.apiVersion);
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  return `${app}:${group}/${String(o.kind)}:${String(meta.namespace ?? "")}/${String(meta.name)}`;
}

/** The root Application, then every other Application in Argo CD's namespace (the ones the root applies). */
export async function reconcileArgo(k: DemoKube, root: string, repoGitDir: string, now: Date): Promise<{ synced: string | null; status: string }> {
  const result = await reconcileApplication(k, root, repoGitDir, now);
  for (const app of await listObjs(k, APP_API, "Application", ARGO_NS)) {
    const name = String(rec(app.metadata).name);
    if (name !== root) await reconcileApplication(k, name, repoGitDir, now);
  }
  return result;
}

async function reconcileApplication(k: DemoKube, application: string, repoGitDir: string, now: Date): Promise<{ synced: string | null; status: string }> {
  const nowIso = now.toISOString();
  const app = await getObj(k, APP_API, "Application", ARGO_NS, application);
  if (!app) return { synced: null, status: "Missing" };
  const meta = rec(app.metadata);
  const spec = rec(app.spec);
  const source = rec(spec.source);
  const s = { application, path: String(source.path ?? "."), branch: String(source.targetRevision ?? "HEAD"), repoUrl: String(source.repoURL ?? "") };
  const status = rec(app.status);
  if (rec(meta.annotations)["argocd.argoproj.io/skip-reconcile"] === "true") return { synced: null, status: "Skipped" };
  const head = (await runGit(repoGitDir, ["rev-parse", `refs/heads/${s.branch}`])).stdout.toString().trim();
  const rendered = await renderManifests(repoGitDir, head, { path: s.path, mode: "plain", defaultNamespace: "shop" });
  const desired = applyOrder(rendered.objects.map((r) => r.object as Obj)).map((obj) => {
    const m = rec(obj.metadata);
    return {
      ...obj,
      metadata: {
        ...m,
        ...(isClusterScoped(String(obj.apiVersion), String(obj.kind)) ? {} : { namespace: m.namespace ?? "shop" }),
        annotations: { ...rec(m.annotations), [TRACKING]: trackingId(s.application, { ...obj, metadata: { ...m, namespace: isClusterScoped(String(obj.apiVersion), String(obj.kind)) ? "" : (m.namespace ?? "shop") } }) },
      },
    } as Obj;
  });
  const ctx = createCompareContext({ controllerManagers: ["argocd-controller"], controllerManaged: true, extraTracking: { argoApp: s.application } });
  const outOfSync: string[] = [];
  for (const d of desired) {
    const m = rec(d.metadata);
    const live = await getObj(k, String(d.apiVersion), String(d.kind), m.namespace ? String(m.namespace) : undefined, String(m.name));
    const verdict = compareObject(d as KubeObject, live as KubeObject | null, ctx);
    if (verdict.type !== "InSync") outOfSync.push(`${String(d.kind)}/${String(m.name)}`);
  }
  const policy = rec(spec.syncPolicy).automated;
  const automated = policy !== undefined && policy !== null && rec(policy).enabled !== false;
  const needsSync = outOfSync.length > 0 || ((status.history as Obj[] | undefined) ?? []).length === 0;
  let operationState = rec(status.operationState);
  let history = (status.history as Obj[] | undefined) ?? [];
  let syncStatus = outOfSync.length > 0 ? "OutOfSync" : "Synced";
  if (automated && needsSync) {
    for (const d of desired) await serverSideApply(k, d, "argocd-controller");
    const startedAt = nowIso;
    operationState = {
      operation: { sync: { revision: head, syncOptions: ["ServerSideApply=true"] }, initiatedBy: { automated: true } },
      phase: "Succeeded",
      message: "successfully synced (all tasks run)",
      startedAt,
      finishedAt: nowIso,
      syncResult: { revision: head, source: { repoURL: s.repoUrl, path: s.path, targetRevision: s.branch } },
    };
    if (history[history.length - 1]?.revision !== head) {
      history = [...history, { id: history.length, revision: head, deployedAt: nowIso, deployStartedAt: startedAt, source: { repoURL: s.repoUrl, path: s.path, targetRevision: s.branch } }].slice(-10);
    }
    syncStatus = "Synced";
  }
  await patchStatus(
    k,
    APP_API,
    "Application",
    ARGO_NS,
    s.application,
    {
      sync: { status: syncStatus, revision: head, comparedTo: { source: { repoURL: s.repoUrl, path: s.path, targetRevision: s.branch } } },
      health: { status: "Healthy" },
      operationState,
      history,
      reconciledAt: nowIso,
      sourceType: "Directory",
      summary: { images: [] },
      conditions: [],
    },
    "argocd-application-controller",
    false,
  );
  return { synced: automated && needsSync ? head : null, status: syncStatus };
}
