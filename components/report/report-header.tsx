import type { IncidentReport } from "@/lib/reports";
import { formatDuration } from "@/lib/dashboard/format";
import { Utc } from "./utc";

export function ReportHeader({ report }: { report: IncidentReport }) {
  const length = Date.parse(report.window.to) - Date.parse(report.window.from);
  return (
    <header className="space-y-3 border-b border-slate-300 pb-4">
      <p className="text-xs tracking-wide text-slate-500 uppercase">Driftwatch incident report</p>
      <h1 className="text-2xl font-semibold tracking-tight">Incident report: {report.environment}</h1>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600">Environment</dt>
        <dd>{report.environment}</dd>
        <dt className="text-slate-600">Window</dt>
        <dd>
          <Utc iso={report.window.from} /> to <Utc iso={report.window.to} /> {`(${formatDuration(length)})`}
        </dd>
        <dt className="text-slate-600">Generated</dt>
        <dd>
          <Utc iso={report.generatedAt} /> by {report.generatedBy}
        </dd>
      </dl>
      <p className="rounded border border-slate-300 bg-white p-3 text-base" aria-label="Summary">
        <span className="font-semibold">Summary: </span>
        {report.summary}
      </p>
    </header>
  );
}
