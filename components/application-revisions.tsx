// The revisions of an environment whose applications follow sources of their
// own: no one approved or applied revision is the environment's, so each
// application's is listed with its commit (from its own repository), or the
// chart version it runs when it comes from a chart repository, those behind first.
import Link from "next/link";
import type { ApplicationRevisionsDto } from "@/lib/api/contract";
import { Ago } from "./time";
import { RevisionLine } from "./revision";

type ChartRevision = NonNullable<ApplicationRevisionsDto["chart"]>;

/** A chart from a chart repository runs a chart version: "ingress-nginx 4.11.3 (app 1.11.3)", and what Git asks for when it differs. */
function ChartRevisionLines({ chart }: { chart: ChartRevision }) {
  return (
    <div className="pl-3">
      {chart.applied ? (
        <span>
          <strong>{chart.name}</strong> <span className="font-mono">{chart.applied.version}</span>
          {chart.applied.appVersion && <span className="text-xs text-slate-500"> (app {chart.applied.appVersion})</span>}
        </span>
      ) : (
        <span className="text-slate-600">
          <strong>{chart.name}</strong>: nothing released yet
        </span>
      )}
      {chart.approved && (
        <div className="flex flex-wrap items-baseline gap-x-2 text-violet-950">
          <span className="text-xs">approved, not applied:</span>
          <span>
            {chart.name} <span className="font-mono">{chart.approved === "*" ? "(newest)" : chart.approved}</span>
          </span>
        </div>
      )}
    </div>
  );
}

/** Enough to see which applications run what; the applications page lists every one. */
export const APPLICATION_REVISIONS_SHOWN = 10;

export function ApplicationRevisions({ environment, applications, now }: { environment: string; applications: ApplicationRevisionsDto[]; now: number }) {
  if (applications.length === 0) return <p className="text-sm text-slate-600">No applications yet: each one&apos;s revisions show here once collected.</p>;
  const ordered = [...applications].sort((a, b) => Number(b.behind) - Number(a.behind));
  const shown = ordered.slice(0, APPLICATION_REVISIONS_SHOWN);
  return (
    <div className="space-y-2 text-sm">
      <p className="text-slate-600">Each application follows its own source: its applied revision, and the approved one when it has not applied it.</p>
      <ul className="space-y-2" aria-label="Revisions per application">
        {shown.map((a) => (
          <li key={a.name}>
            <Link href={a.href} className="font-medium text-blue-700 hover:underline">
              {a.name}
            </Link>
            {a.chart ? (
              <ChartRevisionLines chart={a.chart} />
            ) : (
              <div className="pl-3">
                <RevisionLine rev={a.applied}>{a.appliedSince && <Ago iso={a.appliedSince} now={now} className="text-xs text-slate-500" />}</RevisionLine>
                {a.behind && a.approved && (
                  <div className="flex flex-wrap items-baseline gap-x-2 text-violet-950">
                    <span className="text-xs">approved, not applied:</span>
                    <RevisionLine rev={a.approved} />
                  </div>
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
      {applications.length > shown.length && (
        <p>
          <Link href={`/environments/${encodeURIComponent(environment)}/applications`} className="text-blue-700 hover:underline">
            {applications.length - shown.length} more applications
          </Link>
        </p>
      )}
    </div>
  );
}
