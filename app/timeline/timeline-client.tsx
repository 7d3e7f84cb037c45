"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { replaceQueryInAddress } from "@/components/shallow-url";
import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { EmptyState } from "@/components/empty-state";
import { ErrorBlock, LoadingBlock, StaleDataNotice, useFirstLoadError } from "@/components/query-state";
import { Pill } from "@/components/status-badge";
import { Time, formatLocal, useMounted } from "@/components/time";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { TimelineDto, TimelineEvent, TimelineType } from "@/lib/api/contract";
import { TIMELINE_TYPES, TIMELINE_TYPE_LABELS } from "@/lib/timeline/merge";

const TONE: Record<TimelineType, "slate" | "amber" | "red" | "green" | "sky" | "violet"> = {
  commit: "slate",
  approved: "violet",
  applied: "green",
  drift: "amber",
  pause: "sky",
  claim: "violet",
  alert: "red",
  collection: "red",
  access: "slate",
};

const RANGES: Array<[string, number]> = [
  ["1 h", 3_600_000],
  ["6 h", 6 * 3_600_000],
  ["24 h", 86_400_000],
  ["7 d", 7 * 86_400_000],
  ["30 d", 30 * 86_400_000],
];

/** datetime-local wants "YYYY-MM-DDTHH:mm" in the viewer's zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function dayKey(iso: string, mounted: boolean): string {
  return mounted ? formatLocal(iso, "date") : iso.slice(0, 10) + " (UTC)";
}

export function TimelineClient({ initial, initialParams, problem }: { initial: TimelineDto | null; initialParams: string; problem: string | null }) {
  const pathname = usePathname();
  const mounted = useMounted();
  const [params, setParams] = useState(() => new URLSearchParams(initialParams));
  const qs = params.toString();
  const q = useQuery({
    queryKey: queryKeys.timeline(qs),
    queryFn: () => fetchJson<TimelineDto>(`/api/timeline?${qs}`),
    initialData: initial && qs === initialParams ? initial : undefined,
    refetchInterval: useFallbackPoll(),
    enabled: !problem || qs !== initialParams,
  });
  const t = q.data;
  const firstLoadError = useFirstLoadError(q, qs);
  const types = new Set((params.get("type") ?? "").split(",").filter(Boolean) as TimelineType[]);

  const update = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === "") next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
    const s = next.toString();
    replaceQueryInAddress(pathname, s);
  };

  const groups = useMemo(() => {
    const out: Array<{ day: string; events: TimelineEvent[] }> = [];
    for (const e of t?.events ?? []) {
      const day = dayKey(e.at, mounted);
      const last = out[out.length - 1];
      if (last && last.day === day) last.events.push(e);
      else out.push({ day, events: [e] });
    }
    return out;
  }, [t, mounted]);

  const exportQs = new URLSearchParams(qs);
  if (t) {
    exportQs.set("from", t.from);
    exportQs.set("to", t.to);
  }
  const sel = "rounded border border-slate-300 bg-white px-2 py-1 text-sm";

  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Timeline</h1>
        <p className="text-sm text-slate-600">
          Commits, applies, drift, pauses, claims, alerts and collection failures in one stream, oldest first. Times are in your time zone; hover for UTC.
        </p>
        <Link href={`/reports/incident?${new URLSearchParams({ ...(params.get("environment") ? { env: params.get("environment")! } : {}), ...(t ? { from: t.from, to: t.to } : {}) })}`} className="text-sm text-blue-700 hover:underline">
          Printable incident report for this window
        </Link>
      </div>

      <form className="space-y-3 rounded-lg border border-slate-200 bg-white p-3" onSubmit={(e) => e.preventDefault()} aria-label="Filter the timeline">
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col text-xs text-slate-600">
            Environment
            <select value={params.get("environment") ?? ""} onChange={(e) => update({ environment: e.target.value, application: null })} className={sel}>
              <option value="">All environments</option>
              {(t?.environments ?? []).map((e) => (
                <option key={e}>{e}</option>
              ))}
            </select>
          </label>
          {params.get("environment") && (t?.applications.length ?? 0) > 1 && (
            <label className="flex flex-col text-xs text-slate-600">
              Application
              <select value={params.get("application") ?? ""} onChange={(e) => update({ application: e.target.value })} className={sel}>
                <option value="">All applications</option>
                {t!.applications.map((a) => (
                  <option key={a}>{a}</option>
                ))}
              </select>
            </label>
          )}
          <label className="flex flex-col text-xs text-slate-600">
            From
            <input
              type="datetime-local"
              value={mounted ? toLocalInput(params.get("from") ?? t?.from ?? null) : ""}
              onChange={(e) => update({ from: e.target.value ? new Date(e.target.value).toISOString() : null })}
              className={sel}
            />
          </label>
          <label className="flex flex-col text-xs text-slate-600">
            To
            <input
              type="datetime-local"
              value={mounted ? toLocalInput(params.get("to") ?? t?.to ?? null) : ""}
              onChange={(e) => update({ to: e.target.value ? new Date(e.target.value).toISOString() : null })}
              className={sel}
            />
          </label>
          <div className="flex flex-wrap gap-1" role="group" aria-label="Quick ranges">
            {RANGES.map(([label, ms]) => (
              <button
                key={label}
                type="button"
                onClick={() => update({ from: new Date(Date.now() - ms).toISOString(), to: null })}
                className="rounded border border-slate-300 bg-white px-2 py-1 text-sm hover:bg-slate-50"
              >
                Last {label}
              </button>
            ))}
          </div>
        </div>
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <legend className="sr-only">Event types</legend>
          {TIMELINE_TYPES.map((ty) => (
            <label key={ty} className="inline-flex items-center gap-1">
              <input
                type="checkbox"
                checked={types.size === 0 || types.has(ty)}
                onChange={(e) => {
                  const next = new Set(types.size === 0 ? TIMELINE_TYPES : types);
                  if (e.target.checked) next.add(ty);
                  else next.delete(ty);
                  update({ type: next.size === TIMELINE_TYPES.length ? null : [...next].join(",") || "commit" });
                }}
              />
              {TIMELINE_TYPE_LABELS[ty]}
            </label>
          ))}
        </fieldset>
        <p className="flex flex-wrap items-center gap-2 text-sm">
          Export what you see:
          {(["csv", "json", "md"] as const).map((f) => (
            <a key={f} href={`/api/timeline?${exportQs.toString()}${exportQs.toString() ? "&" : ""}format=${f}`} download className="rounded border border-slate-300 bg-white px-2 py-0.5 text-blue-700 hover:bg-slate-50">
              {f === "md" ? "Markdown (incident write-up)" : f.toUpperCase()}
            </a>
          ))}
        </p>
      </form>

      {problem && qs === initialParams ? (
        <ErrorBlock error={new Error(problem)} />
      ) : firstLoadError ? (
        <ErrorBlock error={firstLoadError} onRetry={() => void q.refetch()} />
      ) : !t ? (
        <LoadingBlock label="Loading the timeline…" />
      ) : (
        <>
          <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
          <p className="text-sm text-slate-600" aria-live="polite">
            {t.events.length} event{t.events.length === 1 ? "" : "s"} from <Time iso={t.from} /> to <Time iso={t.to} />
            {t.truncated && " — only the newest are shown; narrow the range to see everything."}
          </p>
          {t.events.length === 0 ? (
            <EmptyState title="Nothing happened in this window">
              <p>Widen the time range, choose more event types, or pick all environments.</p>
            </EmptyState>
          ) : (
            groups.map((g) => (
              <section key={g.day} aria-label={g.day}>
                <h2 className="sticky top-0 z-10 bg-slate-50 py-1 text-sm font-semibold text-slate-700">{g.day}</h2>
                <ol className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
                  {g.events.map((e) => (
                    <li key={e.id} className="grid grid-cols-[5.5rem_1fr] gap-3 px-3 py-2 text-sm sm:grid-cols-[5.5rem_7.5rem_1fr]">
                      <Time iso={e.at} style="time" className="tabular-nums text-slate-600" />
                      <span className="hidden sm:block">
                        <Pill tone={TONE[e.type]}>{TIMELINE_TYPE_LABELS[e.type]}</Pill>
                      </span>
                      <div className="min-w-0">
                        <p>
                          {e.environments.length > 0 && <span className="mr-1 font-medium text-slate-500">{e.environments.join(", ")}</span>}
                          {e.link ? (
                            <Link href={e.link} className="text-slate-900 hover:underline">
                              {e.title}
                            </Link>
                          ) : (
                            e.title
                          )}
                          <span className="ml-1 text-xs text-slate-500">— {e.actor}</span>
                        </p>
                        {e.detail && <p className="text-xs text-slate-600 [overflow-wrap:anywhere]">{e.detail}</p>}
                        {e.reason && <p className="text-xs text-slate-700">Reason: “{e.reason}”</p>}
                      </div>
                    </li>
                  ))}
                </ol>
              </section>
            ))
          )}
        </>
      )}
    </div>
  );
}
