// Rollback guidance: earlier applied revisions, each with the revert that
// returns to it through a normal review (Driftwatch prints, never pushes).
// The environment page gives it for an environment with one source; an
// application's page for the application's own source.
import type { RollbackDto, RollbackTargetDto } from "@/lib/api/contract";
import { plural } from "@/lib/dashboard/format";
import { CopyButton } from "./copy-button";
import { RevisionLine } from "./revision";
import { Time } from "./time";

/** The most recent earlier revisions are what an on-call engineer rolls back to; older ones fold away. */
export const ROLLBACK_SHOWN = 3;

/** What is rolled back, for the sentences: "this environment" and its path, or "this application" and its source's path. */
export interface RollbackScope {
  name: string;
  what: "environment" | "application";
  /** The branch to revert on (empty: not known). */
  branch: string;
  path: string;
}

export function RollbackTarget({ t, scope }: { t: RollbackTargetDto; scope: RollbackScope }) {
  return (
    <li className="rounded border border-slate-200 p-3">
      <RevisionLine rev={t.revision} />
      <p className="text-xs text-slate-500">
        applied <Time iso={t.firstSeenAt} /> – {t.endedAt ? <Time iso={t.endedAt} /> : "now"}
        {t.source === "inferred" ? " (inferred)" : ""}
      </p>
      {t.revertCommand ? (
        <>
          <div className="mt-2 flex items-start gap-2">
            <code className="block min-w-0 flex-1 break-all rounded bg-slate-900 px-2 py-1 font-mono text-xs text-slate-50">{t.revertCommand}</code>
            <CopyButton text={t.revertCommand} />
          </div>
          <p className="mt-1 text-xs text-slate-600">
            Reverts {plural(t.commits, "commit")}.
            {t.mergeCommits > 0 && ` ${plural(t.mergeCommits, "merge commit")} in the range need${t.mergeCommits === 1 ? "s" : ""} \`-m 1\`.`}
            {t.touchesOtherPaths > 0 && ` ${plural(t.touchesOtherPaths, "commit")} also change${t.touchesOtherPaths === 1 ? "s" : ""} files outside ${scope.path}; to roll back only this ${scope.what}:`}
          </p>
          {t.touchesOtherPaths > 0 && (
            <div className="mt-1 flex items-start gap-2">
              <code className="block min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs">{t.restoreCommand}</code>
              <CopyButton text={t.restoreCommand} />
            </div>
          )}
        </>
      ) : (
        <p className="mt-1 text-xs text-amber-900">This revision is not an ancestor of the current one (history was rewritten); restore its files instead: <code className="break-all">{t.restoreCommand}</code></p>
      )}
    </li>
  );
}

export function RollbackGuidance({ rollback, scope }: { rollback: RollbackDto; scope: RollbackScope }) {
  if (rollback.targets.length === 0) return <p className="text-sm text-slate-600">No earlier applied revision is recorded for {scope.name} yet.</p>;
  return (
    <div className="space-y-3 text-sm">
      <p className="text-slate-600">
        To return {scope.name} to an earlier revision, revert the commits after it on {scope.branch ? <code>{scope.branch}</code> : `its ${scope.what === "environment" ? "application's " : ""}branch`} and
        merge that through your normal review.
        Driftwatch never pushes. Current: <RevisionLine rev={rollback.current} />
      </p>
      <ol className="space-y-3">
        {rollback.targets.slice(0, ROLLBACK_SHOWN).map((t) => (
          <RollbackTarget key={t.revision.sha} t={t} scope={scope} />
        ))}
      </ol>
      {rollback.targets.length > ROLLBACK_SHOWN && (
        <details>
          <summary className="cursor-pointer py-0.5 text-blue-700">{rollback.targets.length - ROLLBACK_SHOWN} older revisions</summary>
          <ol className="mt-3 space-y-3">
            {rollback.targets.slice(ROLLBACK_SHOWN).map((t) => (
              <RollbackTarget key={t.revision.sha} t={t} scope={scope} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
