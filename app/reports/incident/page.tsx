import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { environmentNames } from "@/lib/dashboard";
import { orNotFound } from "@/lib/dashboard/pages";
import { loadIncidentReport, parseIncidentReportQuery } from "@/lib/reports";
import { ReportForm } from "@/components/report/report-form";
import { ReportHeader } from "@/components/report/report-header";
import { AlertsSection, DriftSection, LeadTimesSection, PausesSection, TimelineSection } from "@/components/report/report-sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Incident report" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function IncidentReportPage({ searchParams }: Props) {
  const user = await requireUser();
  const now = new Date();
  const query = parseIncidentReportQuery(await searchParams, now);
  const db = getPrisma();
  const environments = await environmentNames(db);
  // The end of the promotion chain (production, usually) is what incidents are written about.
  const environment = query.environment ?? environments[environments.length - 1] ?? null;
  const report = environment
    ? await orNotFound(loadIncidentReport(db, { environment, window: query.window, now, generatedBy: user.displayName ?? user.username }))
    : null;

  return (
    <article className="report mx-auto max-w-5xl space-y-6">
      <ReportForm environments={environments} environment={environment} window={query.window} />
      {!query.ok && (
        <p role="alert" className="rounded border border-red-200 bg-red-50 p-2 text-sm text-red-800 print:hidden">
          {query.problem} — showing the last 24 hours instead.
        </p>
      )}
      {report ? (
        <>
          <ReportHeader report={report} />
          <DriftSection report={report} />
          <PausesSection report={report} />
          <AlertsSection report={report} />
          <LeadTimesSection report={report} />
          <TimelineSection report={report} />
        </>
      ) : (
        <p className="text-sm text-slate-600">No environment is configured yet, so there is nothing to report.</p>
      )}
    </article>
  );
}
