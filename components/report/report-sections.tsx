// The report's sections as plain tables: what a manager reads on paper.
import Link from "next/link";
import type { IncidentReport } from "@/lib/reports";
import { formatDuration, plural } from "@/lib/dashboard/format";
import { objectPagePath } from "@/lib/dashboard/object-key";
import { ReportSection, ReportTable, cell } from "./report-section";
import { Utc } from "./utc";

const RETURN_PATH_WORDS = { revert: "revert to Git", adopt: "adopt into Git" } as const;

/** An outside link (an incident ticket) prints its address, since paper cannot be clicked. */
function OutsideLink({ href }: { href: string }) {
  return (
    <a href={href} className="report-outside-link text-blue-800 underline" rel="noreferrer">
      incident
    </a>
  );
}

export function DriftSection({ report }: { report: IncidentReport }) {
  return (
    <ReportSection id="drift" title="Drift opened and resolved" empty={report.drift.length ? null : "No drift opened or resolved in this window."}>
      <ReportTable caption="Drift opened and resolved in the window" columns={["Object", "Drift", "Changed by (field manager)", "Opened", "Owner", "Return path", "Resolution"]}>
        {report.drift.map((d) => (
          <tr key={d.key}>
            <td className={cell}>
              <Link href={objectPagePath(report.environment, d.key)} className="font-medium text-slate-900 underline decoration-slate-300">
                {d.object}
              </Link>
            </td>
            <td className={cell}>{d.type}</td>
            <td className={cell}>{d.changedBy}</td>
            <td className={cell}>
              <Utc iso={d.openedAt} />
              {!d.openedInWindow && <span className="block text-xs text-slate-500">before the window</span>}
            </td>
            <td className={cell}>{d.owner ?? <span className="font-semibold text-amber-800">nobody</span>}</td>
            <td className={cell}>{d.returnPath ? RETURN_PATH_WORDS[d.returnPath] : "—"}</td>
            <td className={cell}>
              {d.outcome}
              {d.resolvedAt && (
                <span className="block text-xs text-slate-500">
                  <Utc iso={d.resolvedAt} />
                </span>
              )}
            </td>
          </tr>
        ))}
      </ReportTable>
    </ReportSection>
  );
}

export function PausesSection({ report }: { report: IncidentReport }) {
  return (
    <ReportSection id="pauses" title="Pauses" empty={report.pauses.length ? null : "No reconciliation was paused in this window."}>
      <ReportTable caption="Pauses in the window" columns={["Scope", "Who", "Why", "Started", "Until", "Paused in window"]}>
        {report.pauses.map((p) => (
          <tr key={`${p.startedAt}-${p.scope}`}>
            <td className={cell}>
              {p.scope}
              {p.origin === "detected" && <span className="block text-xs text-amber-800">detected in the cluster</span>}
            </td>
            <td className={cell}>{p.who}</td>
            <td className={cell}>
              {p.reason ?? <span className="text-slate-500">no reason given</span>}
              {p.incidentUrl && (
                <>
                  {" "}
                  <OutsideLink href={p.incidentUrl} />
                </>
              )}
            </td>
            <td className={cell}>
              <Utc iso={p.startedAt} />
            </td>
            <td className={cell}>
              {p.endedAt ? (
                <>
                  resumed <Utc iso={p.endedAt} />
                  {p.endedBy && ` by ${p.endedBy}`}
                </>
              ) : p.expiresAt ? (
                <>
                  until <Utc iso={p.expiresAt} />
                </>
              ) : (
                "no end set"
              )}
            </td>
            <td className={cell}>
              {formatDuration(p.durationInWindowMs)}
              {p.ongoing && <span className="block text-xs text-slate-500">still paused</span>}
            </td>
          </tr>
        ))}
      </ReportTable>
    </ReportSection>
  );
}

export function AlertsSection({ report }: { report: IncidentReport }) {
  return (
    <ReportSection id="alerts" title="Alerts" empty={report.alerts.length ? null : "No alert was open in this window."}>
      <ReportTable caption="Alerts open in the window" columns={["Severity", "Alert", "Opened", "Resolved", "Open for"]}>
        {report.alerts.map((a) => (
          <tr key={`${a.type}-${a.openedAt}`}>
            <td className={cell}>{a.severity}</td>
            <td className={cell}>{a.title}</td>
            <td className={cell}>
              <Utc iso={a.openedAt} />
              {!a.openedInWindow && <span className="block text-xs text-slate-500">before the window</span>}
            </td>
            <td className={cell}>{a.resolvedAt ? <Utc iso={a.resolvedAt} /> : "still open"}</td>
            <td className={cell}>{formatDuration(a.durationMs)}</td>
          </tr>
        ))}
      </ReportTable>
    </ReportSection>
  );
}

export function LeadTimesSection({ report }: { report: IncidentReport }) {
  const median = report.counts.medianLeadTimeMs;
  return (
    <ReportSection id="lead-times" title="Lead times (commit → live)" empty={report.leadTimes.length ? null : `No commit went live in ${report.environment} in this window.`}>
      <p className="text-sm">
        Median lead time <strong>{formatDuration(median)}</strong> {`over ${plural(report.leadTimes.length, "commit")}.`} A commit counts as live once the applied revision contains it, so a change
        made in an earlier environment and promoted counts from its first commit.
      </p>
      <ReportTable caption="Commits that went live in the window" columns={["Commit", "Author", "Committed", "Live", "Lead time"]}>
        {report.leadTimes.map((l) => (
          <tr key={l.sha}>
            <td className={cell}>
              <Link href={`/commits/${l.sha}`} className="font-mono text-slate-900 underline decoration-slate-300">
                {l.shortSha}
              </Link>{" "}
              {l.message}
              {l.changes.length > 0 && <span className="block text-xs text-slate-600">{`changes ${l.changes.join(", ")}`}</span>}
            </td>
            <td className={cell}>{l.authorName}</td>
            <td className={cell}>
              <Utc iso={l.committedAt} />
            </td>
            <td className={cell}>
              <Utc iso={l.liveAt} />
            </td>
            <td className={cell}>{formatDuration(l.leadTimeMs)}</td>
          </tr>
        ))}
      </ReportTable>
    </ReportSection>
  );
}

export function TimelineSection({ report }: { report: IncidentReport }) {
  return (
    <ReportSection id="timeline" title="Timeline" newPage empty={report.timeline.length ? null : "Nothing was recorded for this environment in this window."}>
      {report.timelineTruncated && <p className="text-sm text-amber-800">The window holds more events than one report shows; narrow it to see them all.</p>}
      <ReportTable caption="Everything recorded in the window, oldest first" columns={["Time", "What happened", "Who"]}>
        {report.timeline.map((e) => (
          <tr key={e.id}>
            <td className={`${cell} whitespace-nowrap`}>
              <Utc iso={e.at} />
            </td>
            <td className={cell}>
              {e.title}
              {e.detail && <span className="block text-xs text-slate-600">{e.detail}</span>}
              {e.reason && e.reason !== e.title.replace(/^Alert: /, "") && <span className="block text-xs text-slate-600">{`“${e.reason}”`}</span>}
            </td>
            <td className={cell}>{e.actor}</td>
          </tr>
        ))}
      </ReportTable>
    </ReportSection>
  );
}
