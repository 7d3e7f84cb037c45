// Short built-in runbooks for the on-call engineer: what to check, what to
// do. A team's own runbook replaces the link via `alerts.runbooks[type]`.
import type { AlertType } from "./rules";
import type { Runbook } from "@/lib/api/contract/alerts";

export type { Runbook } from "@/lib/api/contract/alerts";

const BASE: Record<AlertType, Omit<Runbook, "url">> = {
  environment_stale: {
    summary: "Git has a newer approved revision than the controller applied, for longer than the environment's threshold.",
    check: [
      "The controller error shown with the alert (source fetch, authentication, build or apply failure).",
      "Whether the controller is paused or its source is suspended.",
      "The applied revision on the environment page: is it moving at all?",
    ],
    act: [
      "Fix the cause the controller reports, then trigger a reconcile (flux reconcile kustomization … --with-source, or argocd app sync …).",
      "Watch the applied revision catch up on the environment page; the alert resolves by itself.",
    ],
  },
  convergence_failing: {
    summary: "The GitOps controller has reported a failing condition for several collection intervals.",
    check: ["The condition's reason and message.", "Recent commits on the environment's path (a bad manifest?).", "The controller's own logs."],
    act: ["Fix the manifest or the controller's configuration and let it reconcile.", "If a commit broke it, revert that commit in Git."],
  },
  drift_unowned: {
    summary: "Live objects differ from Git and nobody has claimed the difference.",
    check: ["The field-level diff and who changed it (the managedFields manager).", "Whether an incident is in progress that explains the change."],
    act: [
      "If the change is intended for now: claim it with a reason, an expiry and a return path.",
      "If not: revert it (let the controller reconcile, or re-apply from Git).",
    ],
  },
  claim_expired: {
    summary: "A temporary divergence outlived its claim: the drift is still there.",
    check: ["Whether the owner still needs the change.", "The claim's return path (revert or adopt)."],
    act: [
      "Revert: let the controller restore Git's state, or resume reconciliation.",
      "Adopt: download the adopt patch from the claim and open a pull request.",
      "Still needed: transfer the claim (to yourself) with a new expiry.",
    ],
  },
  pause_expired: {
    summary: "A pause outlived its expiry: reconciliation is still off.",
    check: ["Whether the pause's reason still holds (ask its owner).", "Drift that accumulated during the pause."],
    act: ["Resume reconciliation from the environment page, or pause again with a new expiry and reason."],
  },
  pause_unattributed: {
    summary: "Reconciliation was suspended in the cluster without going through Driftwatch.",
    check: [
      "The manager that last wrote the suspend switch (kubectl-patch, flux, argocd-server, …) and when.",
      "Your incident channel: who is working on this environment?",
    ],
    act: ["Whoever paused it: take ownership in Driftwatch with a reason and an expiry.", "If nobody did on purpose: resume reconciliation."],
  },
  collection_failing: {
    summary: "Driftwatch cannot read this environment; what it shows is the last good state.",
    check: ["The error category: unreachable, timeout, unauthorised, forbidden, git-auth, git-fetch, render.", "The credential the environment uses (token expiry, RBAC)."],
    act: ["Fix connectivity or the credential; the next run clears the alert.", "Refresh now from the environment page to check."],
  },
};

/** Causes that deserve their own first step: the controller's reason names the fix. */
function specific(type: AlertType, details: Record<string, unknown>): string[] {
  const err = (details.controllerError ?? details) as { reason?: unknown; message?: unknown };
  const reason = typeof err.reason === "string" ? err.reason : "";
  const message = typeof err.message === "string" ? err.message : "";
  const text = `${reason} ${message}`;
  if (type !== "environment_stale" && type !== "convergence_failing") {
    if (type === "collection_failing" && (details.category === "unauthorised" || details.category === "git-auth")) {
      return ["Driftwatch's own credential was refused: check the token or key named in driftwatch.yaml and rotate it."];
    }
    return [];
  }
  if (/AuthenticationFailed|authentication required|401|403|permission denied|could not read Username/i.test(text)) {
    return [
      "The controller cannot authenticate to Git: check its Git credential (the Secret referenced by the GitRepository / repository config), rotate it, then watch the applied revision catch up.",
    ];
  }
  if (/BuildFailed|kustomize build failed|yaml:|error converting YAML/i.test(text)) {
    return ["The manifests at the approved revision do not build: run kustomize build on that commit and fix or revert it."];
  }
  if (/HealthCheckFailed|timeout waiting for|Progressing/i.test(text)) {
    return ["The new revision applied but workloads are not becoming ready: check rollout status and pod events."];
  }
  return [];
}

export function runbookFor(type: AlertType, details: Record<string, unknown>, overrides: Record<string, string> = {}): Runbook {
  const base = (BASE as Partial<Record<string, Omit<Runbook, "url">>>)[type] ?? {
    summary: "An alert Driftwatch does not have a runbook for.",
    check: ["The alert's details."],
    act: ["Follow your team's procedure."],
  };
  // One application's alert: its own page, not the environment's, shows what its controller applied.
  const app = typeof details.application === "string" ? details.application : null;
  const page = (steps: string[]) => (app ? steps.map((s) => s.replace("on the environment page", `on ${app}'s application page`)) : steps);
  return { ...base, check: page(base.check), act: page([...specific(type, details), ...base.act]), url: overrides[type] ?? null };
}
