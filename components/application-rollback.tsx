// An application's rollback guidance, on its own source: the revert on its
// repository's branch that returns its path to an earlier applied revision.
import type { ApplicationDetailDto } from "@/lib/api/contract";
import { RollbackGuidance } from "./rollback-guidance";

export function ApplicationRollback({ detail }: { detail: ApplicationDetailDto }) {
  const a = detail.application;
  const source = a.sources.find((s) => !s.refOnly);
  return (
    <section aria-labelledby="application-rollback">
      <h2 id="application-rollback" className="text-lg font-semibold text-slate-900">
        Rollback guidance
      </h2>
      {detail.rollback && source ? (
        <>
          <p className="text-xs text-slate-500">
            On {source.repository ?? source.url}, path <code>{source.path}</code>: only the commits that changed it are reverted.
          </p>
          <RollbackGuidance rollback={detail.rollback} scope={{ name: a.name, what: "application", branch: source.ref, path: source.path }} />
        </>
      ) : (
        <p className="text-sm text-slate-600">
          {!source
            ? `${a.name} has no source to revert on.`
            : source.chart
              ? `${a.name} installs a chart from a Helm repository: roll it back by pinning an earlier chart version where it is declared.`
              : source.follows.kind !== "branch" && source.follows.kind !== "default-branch"
                ? `${a.name} follows ${source.follows.text}, not a branch: roll it back by pointing its ref at an earlier revision where it is declared.`
                : `${a.name}'s repository (${source.url}) is not declared in driftwatch.yaml: Driftwatch has not read its history.`}
        </p>
      )}
    </section>
  );
}
