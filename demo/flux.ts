// A demo Flux: source-controller and kustomize-controller behaviour through
// the API only. The GitRepository fetches the branch (failing with
// AuthenticationFailed when its credential is no longer accepted), and every
// Kustomization that follows it server-side applies its rendered path as
// kustomize-controller (after those it dependsOn, so the Kustomizations one
// applies are reconciled in the same round, as Flux would within seconds),
// prunes what left its inventory, honours spec.suspend and records
// lastAppliedRevision, inventory and conditions in status; then helm-controller
// releases the HelmReleases they applied (demo/helm.ts).
import { renderManifests } from "@/lib/git";
import { isClusterScoped } from "@/lib/git";
import { runGit } from "@/lib/git/exec";
import { reconcileHelmReleases } from "./helm";
import { applyOrder, deleteObj, getObj, listObjs, patchStatus, serverSideApply, setCondition, type DemoKube } from "./kube-writer";

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

export const FLUX_NS = "flux-system";
const SOURCE_API = "source.toolkit.fluxcd.io/v1";
const KUSTOMIZE_API = "kustomize.toolkit.fluxcd.io/v1";

export interface FluxSetup {
  /** The Kustomization `flux bootstrap` (or an installer) creates; it may apply further ones from Git. */
  kustomization: string;
  source: string;
  path: string;
  branch: string;
  repoUrl: string;
  /** The GitRepository's credential Secret (bootstrap names it after the source); default `<source>-auth`. */
  secret?: string;
}

const secretOf = (s: FluxSetup) => s.secret ?? `${s.source}-auth`;

/** The GitRepository, Kustomization and credential Secret a Flux install would have. */
export function fluxObjects(s: FluxSetup, token: string): Obj[] {
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: FLUX_NS } },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: secretOf(s), namespace: FLUX_NS },
      type: "Opaque",
      stringData: { username: "git", password: token },
    },
    {
      apiVersion: SOURCE_API,
      kind: "GitRepository",
      metadata: { name: s.source, namespace: FLUX_NS },
      spec: { interval: "1m", url: s.repoUrl, ref: { branch: s.branch }, secretRef: { name: secretOf(s) } },
    },
    {
      apiVersion: KUSTOMIZE_API,
      kind: "Kustomization",
      metadata: { name: s.kustomization, namespace: FLUX_NS },
      // No targetNamespace: every demo manifest names its namespace, and with one the desired state needs a kustomize build (as Flux's does), which the demo does not require.
      spec: { interval: "5m", path: `./${s.path}`, prune: true, sourceRef: { kind: "GitRepository", name: s.source } },
    },
  ];
}

function inventoryId(o: Obj): string {
  const meta = rec(o.metadata);
  const apiVersion = String(o.apiVersion);
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  return `${String(meta.namespace ?? "")}_${String(meta.name)}_${group}_${String(o.kind)}`;
}

export interface FluxTickResult {
  fetched: string | null;
  applied: string | null;
  error: string | null;
}

/**
 * One reconciliation of source and Kustomization. `validTokens` stands in for
 * the Git host: a token not in it is rejected, as an expired one would be.
 */
export async function reconcileFlux(k: DemoKube, s: FluxSetup, repoGitDir: string, validTokens: ReadonlySet<string>, now: Date): Promise<FluxTickResult> {
  const nowIso = now.toISOString();
  const result: FluxTickResult = { fetched: null, applied: null, error: null };
  const source = await getObj(k, SOURCE_API, "GitRepository", FLUX_NS, s.source);
  const kustomization = await getObj(k, KUSTOMIZE_API, "Kustomization", FLUX_NS, s.kustomization);
  if (!source || !kustomization) return result;

  // ── source-controller ──────────────────────────────────────────────────
  let artifact = rec(rec(source.status).artifact);
  if (rec(source.spec).suspend !== true) {
    const secret = await getObj(k, "v1", "Secret", FLUX_NS, secretOf(s));
    const password = Buffer.from(String(rec(rec(secret).data).password ?? ""), "base64").toString("utf8");
    let conditions = (rec(source.status).conditions as Obj[] | undefined) ?? [];
    if (!validTokens.has(password)) {
      const message = `failed to checkout and determine revision: unable to clone '${s.repoUrl}': authentication required: Invalid username or password`;
      conditions = setCondition(conditions, { type: "Ready", status: "False", reason: "AuthenticationFailed", message }, nowIso);
      conditions = setCondition(conditions, { type: "FetchFailed", status: "True", reason: "AuthenticationFailed", message }, nowIso);
      result.error = "AuthenticationFailed";
    } else {
      const head = (await runGit(repoGitDir, ["rev-parse", `refs/heads/${s.branch}`])).stdout.toString().trim();
      const revision = `${s.branch}@sha1:${head}`;
      if (artifact.revision !== revision) {
        artifact = { revision, digest: `sha256:${head}${head.slice(0, 24)}`, lastUpdateTime: nowIso, path: `gitrepository/${FLUX_NS}/${s.source}/${head}.tar.gz`, url: `http://source-controller.${FLUX_NS}.svc.cluster.local./gitrepository/${FLUX_NS}/${s.source}/${head}.tar.gz` };
      }
      conditions = conditions.filter((c) => c.type !== "FetchFailed");
      conditions = setCondition(conditions, { type: "Ready", status: "True", reason: "Succeeded", message: `stored artifact for revision '${revision}'` }, nowIso);
      result.fetched = head;
    }
    await patchStatus(k, SOURCE_API, "GitRepository", FLUX_NS, s.source, { observedGeneration: 1, artifact, conditions }, "source-controller");
  }

  // ── kustomize-controller ───────────────────────────────────────────────
  const revision = typeof artifact.revision === "string" ? artifact.revision : null;
  if (!revision) return result;
  const done = new Set<string>();
  for (;;) {
    const follows = (await listObjs(k, KUSTOMIZE_API, "Kustomization", FLUX_NS)).filter((ks) => rec(rec(ks.spec).sourceRef).name === s.source);
    const names = new Set(follows.map((ks) => String(rec(ks.metadata).name)));
    const ready = follows.filter((ks) => {
      const name = String(rec(ks.metadata).name);
      const deps = ((rec(ks.spec).dependsOn as Obj[] | undefined) ?? []).map((d) => String(d.name));
      return !done.has(name) && deps.every((d) => done.has(d) || !names.has(d));
    });
    if (ready.length === 0) break;
    for (const ks of ready) {
      const name = String(rec(ks.metadata).name);
      done.add(name);
      if (rec(ks.spec).suspend === true) continue;
      await applyKustomization(k, ks, repoGitDir, revision, nowIso);
      if (name === s.kustomization) result.applied = revision.split(":").pop() ?? "";
    }
  }
  // ── helm-controller: releases what the Kustomizations just applied ─────
  await reconcileHelmReleases(k, now);
  return result;
}

async function applyKustomization(k: DemoKube, kustomization: Obj, repoGitDir: string, revision: string, nowIso: string): Promise<void> {
  const name = String(rec(kustomization.metadata).name);
  const path = String(rec(kustomization.spec).path ?? ".").replace(/^\.\//, "") || ".";
  const sha = revision.split(":").pop() ?? "";
  const rendered = await renderManifests(repoGitDir, sha, { path, mode: "plain", defaultNamespace: "shop" });
  const applied: Obj[] = [];
  for (const obj of applyOrder(rendered.objects.map((r) => r.object as Obj))) {
    const meta = rec(obj.metadata);
    // kustomize-controller labels what it applies with its owner.
    const labelled = {
      ...obj,
      metadata: {
        ...meta,
        ...(isClusterScoped(String(obj.apiVersion), String(obj.kind)) ? {} : { namespace: meta.namespace ?? "shop" }),
        labels: { ...rec(meta.labels), "kustomize.toolkit.fluxcd.io/name": name, "kustomize.toolkit.fluxcd.io/namespace": FLUX_NS },
      },
    };
    await serverSideApply(k, labelled, "kustomize-controller");
    applied.push(labelled);
  }
  const status = rec(kustomization.status);
  const inventory = applied.map((o) => ({ id: inventoryId(o), v: String(o.apiVersion).split("/").pop() }));
  const keep = new Set(inventory.map((e) => e.id));
  for (const old of (rec(status.inventory).entries as Obj[] | undefined) ?? []) {
    const id = String(old.id);
    if (keep.has(id)) continue;
    const [ns, objName, group, kind] = id.split("_");
    if (!objName || !kind) continue;
    const apiVersion = group ? `${group}/${String(old.v ?? "v1")}` : String(old.v ?? "v1");
    await deleteObj(k, apiVersion, kind, ns || undefined, objName);
  }
  let conditions = (status.conditions as Obj[] | undefined) ?? [];
  conditions = setCondition(conditions, { type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: `Applied revision: ${revision}` }, nowIso);
  conditions = setCondition(conditions, { type: "Healthy", status: "True", reason: "Succeeded", message: "Health check passed" }, nowIso);
  await patchStatus(
    k,
    KUSTOMIZE_API,
    "Kustomization",
    FLUX_NS,
    name,
    { observedGeneration: 1, lastAppliedRevision: revision, lastAttemptedRevision: revision, lastHandledReconcileAt: nowIso, inventory: { entries: inventory }, conditions },
    "kustomize-controller",
  );
}
