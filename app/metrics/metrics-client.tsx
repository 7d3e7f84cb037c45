"use client";
import { usePathname } from "next/navigation";
import { replaceQueryInAddress } from "@/components/shallow-url";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ChartFrame, ColumnChart, HBarChart, Lanes, StackedColumns } from "@/components/charts";
import { StaleDataNotice } from "@/components/query-state";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { MetricsDto } from "@/lib/api/contract";
import { formatDuration } from "@/lib/dashboard/format";

const hours = (ms: number) => (ms >= 86_400_000 ? `${(ms / 86_400_000).toFixed(1)} d` : ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : `${Math.round(ms / 60_000)} min`);

export function MetricsClient({ initial }: { initial: MetricsDto }) {
  const pathname = usePathname();
  const [days, setDays] = useState(initial.window.days);
  const [application, setApplication] = useState(initial.application);
  const qs = new URLSearchParams({ days: String(days), ...(application ? { application } : {}) }).toString();
  const q = useQuery({
    queryKey: queryKeys.metrics(days, application),
    queryFn: () => fetchJson<MetricsDto>(`/api/delivery-metrics?${qs}`),
    initialData: days === initial.window.days && application === initial.application ? initial : undefined,
    refetchInterval: useFallbackPoll(),
  });
  const m = q.data ?? initial;
  const lifetimeTotal = m.driftLifetime.buckets.reduce((s, b) => s + b.count, 0);
  const edits = m.manualEdits.managers.reduce((s, x) => s + x.counts.reduce((a, b) => a + b, 0), 0);
  const th = "px-2 py-1 text-left font-medium text-slate-600";

  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Metrics</h1>
          <p className="text-sm text-slate-600">
            The last {m.window.days} days, from what Driftwatch observed. Lead time counts a commit as live in an environment once an applied revision contains it.
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-3">
        {m.applications.length > 1 && (
          <label className="flex flex-col text-xs text-slate-600">
            Application
            <select
              value={application ?? ""}
              onChange={(e) => {
                const a = e.target.value || null;
                setApplication(a);
                replaceQueryInAddress(pathname, new URLSearchParams({ days: String(days), ...(a ? { application: a } : {}) }).toString());
              }}
              className="rounded border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              <option value="">All applications</option>
              {m.applications.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
        )}
        <label className="flex flex-col text-xs text-slate-600">
          Window
          <select
            value={days}
            onChange={(e) => {
              const d = Number(e.target.value);
              setDays(d);
              replaceQueryInAddress(pathname, new URLSearchParams({ days: String(d), ...(application ? { application } : {}) }).toString());
            }}
            className="rounded border border-slate-300 bg-white px-2 py-1 text-sm"
          >
            {[7, 14, 30, 90].map((d) => (
              <option key={d} value={d}>
                last {d} days
              </option>
            ))}
          </select>
        </label>
        </div>
      </div>
      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
      {q.isFetching && !q.data && <p className="text-sm text-slate-500">Loading…</p>}

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <ChartFrame
          title="Lead time, commit → live, per hop"
          summary={
            m.leadTime.length === 0
              ? "No commit has reached an environment in this window yet."
              : `Median per hop: ${m.leadTime.map((h) => `${h.from ?? "commit"} → ${h.to} ${formatDuration(h.medianMs)}`).join(", ")}. The bar is the median; the dashed whisker reaches the 90th percentile.`
          }
          table={
            <table className="text-xs">
              <thead>
                <tr>
                  <th className={th}>Hop</th>
                  <th className={th}>Commits</th>
                  <th className={th}>Median</th>
                  <th className={th}>p90</th>
                  <th className={th}>Max</th>
                </tr>
              </thead>
              <tbody>
                {m.leadTime.map((h) => (
                  <tr key={`${h.from}-${h.to}`}>
                    <td className="px-2 py-1">
                      {h.from ?? "commit"} → {h.to}
                    </td>
                    <td className="px-2 py-1 tabular-nums">{h.samples}</td>
                    <td className="px-2 py-1">{formatDuration(h.medianMs)}</td>
                    <td className="px-2 py-1">{formatDuration(h.p90Ms)}</td>
                    <td className="px-2 py-1">{formatDuration(h.maxMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          }
        >
          {m.leadTime.length > 0 && (
            <HBarChart
              label={`Median lead time per hop: ${m.leadTime.map((h) => `${h.from ?? "commit"} to ${h.to} ${formatDuration(h.medianMs)}`).join("; ")}`}
              rows={m.leadTime.map((h) => ({ label: `${h.from ?? "commit"} → ${h.to}`, value: h.medianMs ?? 0, whisker: h.p90Ms, note: `(${h.samples})` }))}
              format={hours}
            />
          )}
        </ChartFrame>

        <ChartFrame
          title="Drift lifetime"
          summary={`${m.driftLifetime.resolved} resolved, ${m.driftLifetime.open} still open; median ${formatDuration(m.driftLifetime.medianMs)} from opened to resolved.`}
          table={
            <table className="text-xs">
              <thead>
                <tr>
                  <th className={th}>Lifetime</th>
                  <th className={th}>Resolved drift items</th>
                </tr>
              </thead>
              <tbody>
                {m.driftLifetime.buckets.map((b) => (
                  <tr key={b.label}>
                    <td className="px-2 py-1">{b.label}</td>
                    <td className="px-2 py-1 tabular-nums">{b.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          }
        >
          {lifetimeTotal === 0 ? (
            <p className="text-sm text-slate-600">No drift was resolved in this window.</p>
          ) : (
            <ColumnChart label={`Resolved drift by lifetime: ${m.driftLifetime.buckets.map((b) => `${b.label} ${b.count}`).join(", ")}`} columns={m.driftLifetime.buckets.map((b) => ({ label: b.label, value: b.count }))} />
          )}
        </ChartFrame>

        <ChartFrame
          title="Manual edits per week, by manager"
          summary={edits === 0 ? "No drift made by people in this window." : `${edits} drift items opened by people (managers the cluster recorded), per week starting Monday (UTC): ${m.manualEdits.managers.map((x) => `${x.manager} ${x.counts.reduce((a, b) => a + b, 0)}`).join(", ")}.`}
          table={
            edits > 0 && (
              <table className="text-xs">
                <thead>
                  <tr>
                    <th className={th}>Week of</th>
                    {m.manualEdits.managers.map((x) => (
                      <th key={x.manager} className={th}>
                        <code>{x.manager}</code>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {m.manualEdits.weeks.map((w, i) => (
                    <tr key={w}>
                      <td className="px-2 py-1">{w}</td>
                      {m.manualEdits.managers.map((x) => (
                        <td key={x.manager} className="px-2 py-1 tabular-nums">
                          {x.counts[i] ?? 0}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        >
          {edits > 0 && (
            <StackedColumns
              label={`Manual edits per week: ${m.manualEdits.managers.map((x) => `${x.manager} ${x.counts.reduce((a, b) => a + b, 0)}`).join(", ")}`}
              periods={m.manualEdits.weeks}
              series={m.manualEdits.managers.map((x) => ({ name: x.manager, values: x.counts }))}
            />
          )}
        </ChartFrame>

        <ChartFrame
          title="Stale time per environment"
          summary={`How long each environment had an approved commit it had not applied yet (an environment of several applications: while any of them had; time before Driftwatch first saw it is not counted): ${m.staleTime.map((s) => `${s.environment} ${formatDuration(s.totalMs)}`).join(", ")}.`}
          table={
            <table className="text-xs">
              <thead>
                <tr>
                  <th className={th}>Environment</th>
                  <th className={th}>Stale in total</th>
                  <th className={th}>Periods</th>
                </tr>
              </thead>
              <tbody>
                {m.staleTime.map((s) => (
                  <tr key={s.environment}>
                    <td className="px-2 py-1">{s.environment}</td>
                    <td className="px-2 py-1">{formatDuration(s.totalMs)}</td>
                    <td className="px-2 py-1">{s.intervals.length} period(s)</td>
                  </tr>
                ))}
              </tbody>
            </table>
          }
        >
          <HBarChart label={`Stale time: ${m.staleTime.map((s) => `${s.environment} ${formatDuration(s.totalMs)}`).join("; ")}`} rows={m.staleTime.map((s) => ({ label: s.environment, value: s.totalMs }))} format={hours} />
          <Lanes
            label="Stale periods per environment on a time axis"
            from={m.window.from}
            to={m.window.to}
            lanes={m.staleTime.map((s) => ({ label: s.environment, spans: s.intervals.map((i) => ({ start: i.start, end: i.end, title: `${s.environment} stale ${formatDuration(Date.parse(i.end) - Date.parse(i.start))}` })) }))}
          />
        </ChartFrame>

        <ChartFrame
          title="Pauses and their durations"
          summary={m.pauses.length === 0 ? "No pause in this window." : `${m.pauses.length} pause(s); hatched ones are still active.`}
          table={
            <table className="text-xs">
              <thead>
                <tr>
                  <th className={th}>Environment</th>
                  <th className={th}>Scope</th>
                  <th className={th}>Origin</th>
                  <th className={th}>Duration</th>
                  <th className={th}>Reason</th>
                </tr>
              </thead>
              <tbody>
                {m.pauses.map((p, i) => (
                  <tr key={i}>
                    <td className="px-2 py-1">{p.environment}</td>
                    <td className="px-2 py-1">{p.controllerRef ?? "environment"}</td>
                    <td className="px-2 py-1">{p.origin}</td>
                    <td className="px-2 py-1">
                      {formatDuration(p.durationMs)}
                      {p.endedAt ? "" : " (active)"}
                    </td>
                    <td className="px-2 py-1">{p.reason ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          }
        >
          {m.pauses.length > 0 && (
            <Lanes
              label={`Pauses: ${m.pauses.map((p) => `${p.environment} ${formatDuration(p.durationMs)}${p.endedAt ? "" : " active"}`).join("; ")}`}
              from={m.window.from}
              to={m.window.to}
              lanes={m.environments
                .filter((e) => m.pauses.some((p) => p.environment === e))
                .map((e) => ({
                  label: e,
                  spans: m.pauses
                    .filter((p) => p.environment === e)
                    .map((p) => ({ start: p.startedAt, end: p.endedAt, open: p.endedAt === null, title: `${p.origin} pause, ${formatDuration(p.durationMs)}${p.reason ? `: ${p.reason}` : ""}` })),
                }))}
            />
          )}
        </ChartFrame>
      </div>
    </div>
  );
}
