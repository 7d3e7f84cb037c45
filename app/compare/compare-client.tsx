"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { replaceQueryInAddress } from "@/components/shallow-url";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { CompareApplications } from "@/components/compare-applications";
import { EmptyState } from "@/components/empty-state";
import { ErrorBlock, LoadingBlock, useFirstLoadError } from "@/components/query-state";
import { RevisionLine } from "@/components/revision";
import { Pill } from "@/components/status-badge";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { CompareDto } from "@/lib/api/contract";
import { valueText } from "@/lib/dashboard/format";
import { objectPagePath } from "@/lib/dashboard/object-key";

/** The first differing objects are shown open; the rest stay one line each, so a long list stays readable. */
const OPEN_DIFFERENCES = 20;

/** For each object, how many differing ones come before it. */
function differingBefore(objects: CompareDto["objects"]): number[] {
  let n = 0;
  return objects.map((o) => (o.state === "differs" ? n++ : n));
}

export function CompareClient({ environments, initial, initialParams, problem }: { environments: string[]; initial: CompareDto | null; initialParams: string; problem: string | null }) {
  const pathname = usePathname();
  const [params, setParams] = useState(() => {
    const p = new URLSearchParams(initialParams);
    // A sensible first question: the last two environments of the chain (staging vs production).
    if (!p.get("from") && environments.length >= 2) p.set("from", environments[environments.length - 2]!);
    if (!p.get("to") && environments.length >= 2) p.set("to", environments[environments.length - 1]!);
    return p;
  });
  const [submitted, setSubmitted] = useState(initialParams.includes("from=") && initialParams.includes("to=") ? initialParams : null);
  const q = useQuery({
    queryKey: queryKeys.compare(submitted ?? ""),
    queryFn: () => fetchJson<CompareDto>(`/api/compare?${submitted}`),
    initialData: initial && submitted === initialParams ? initial : undefined,
    enabled: submitted !== null && !(problem && submitted === initialParams),
    refetchInterval: useFallbackPoll(),
  });
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next);
  };
  const c = q.data;
  const differsBefore = c ? differingBefore(c.objects) : [];
  const submit = (next: URLSearchParams) => {
    const s = next.toString();
    setParams(next);
    setSubmitted(s);
    replaceQueryInAddress(pathname, s);
  };
  const chooseApplication = (promotionKey: string | null) => {
    const next = new URLSearchParams(submitted ?? params.toString());
    if (promotionKey) next.set("application", promotionKey);
    else next.delete("application");
    submit(next);
  };
  const firstLoadError = useFirstLoadError(q, submitted ?? "");
  const sel = "rounded border border-slate-300 bg-white px-2 py-1 text-sm";
  const mode = params.get("mode") ?? "live";

  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Compare environments</h1>
        <p className="text-sm text-slate-600">“Why does it work in staging?” Object by object and field by field, what differs between two environments.</p>
      </div>
      <form
        className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3"
        onSubmit={(e) => {
          e.preventDefault();
          // Another pair of environments: the application chosen for the last pair may not be in it.
          const next = new URLSearchParams(params);
          if (c && (next.get("from") !== c.from.environment || next.get("to") !== c.to.environment)) next.delete("application");
          submit(next);
        }}
      >
        <label className="flex flex-col text-xs text-slate-600">
          From
          <select value={params.get("from") ?? ""} onChange={(e) => set("from", e.target.value)} className={sel} required>
            <option value="">Choose…</option>
            {environments.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          To
          <select value={params.get("to") ?? ""} onChange={(e) => set("to", e.target.value)} className={sel} required>
            <option value="">Choose…</option>
            {environments.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </label>
        <fieldset className="flex flex-col text-xs text-slate-600">
          <legend>Compare</legend>
          <div className="flex gap-3 py-1 text-sm text-slate-900">
            <label className="inline-flex items-center gap-1">
              <input type="radio" name="mode" checked={mode === "live"} onChange={() => set("mode", "")} /> live vs live
            </label>
            <label className="inline-flex items-center gap-1">
              <input type="radio" name="mode" checked={mode === "desired"} onChange={() => set("mode", "desired")} /> Git vs Git
            </label>
          </div>
        </fieldset>
        <label className="flex flex-col text-xs text-slate-600">
          Kind (optional)
          <input value={params.get("kind") ?? ""} onChange={(e) => set("kind", e.target.value.trim())} placeholder="e.g. Deployment" className={`${sel} w-40`} />
        </label>
        <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700">
          Compare
        </button>
      </form>

      {environments.length < 2 ? (
        <EmptyState title="Two environments needed">
          <p>Comparing needs at least two environments in driftwatch.yaml.</p>
        </EmptyState>
      ) : problem && submitted === initialParams ? (
        <ErrorBlock error={new Error(problem)} />
      ) : submitted === null ? (
        <p className="text-sm text-slate-600">Choose two environments and press Compare.</p>
      ) : firstLoadError ? (
        <ErrorBlock error={firstLoadError} onRetry={() => void q.refetch()} />
      ) : !c ? (
        <LoadingBlock label="Comparing…" />
      ) : (
        <>
          <section aria-label="Summary" className="grid gap-3 text-sm sm:grid-cols-2">
            <div className="rounded-lg border border-slate-200 bg-white p-3">
              <p className="font-semibold">{c.from.environment}</p>
              <SideRevision side={c.from} mode={c.mode} />
            </div>
            <div className="rounded-lg border border-slate-200 bg-white p-3">
              <p className="font-semibold">{c.to.environment}</p>
              <SideRevision side={c.to} mode={c.mode} />
            </div>
          </section>
          {(c.applications.length > 1 || c.application !== null || c.from.perApplication || c.to.perApplication) && (
            <CompareApplications applications={c.applications} from={c.from.environment} to={c.to.environment} chosen={c.application} onChoose={chooseApplication} />
          )}
          <p className="text-sm text-slate-700" aria-live="polite">
            {c.application !== null && (
              <>
                Objects of <strong>{c.application}</strong>:{" "}
              </>
            )}
            <strong>{c.differs}</strong> differ · <strong>{c.onlyFrom}</strong> only in {c.from.environment} · <strong>{c.onlyTo}</strong> only in {c.to.environment} · {c.same} identical
            {c.truncated && " (list shortened; filter by kind to see the rest)"}
          </p>
          {c.objects.length === 0 ? (
            <EmptyState title="No differences">
              <p>
                Every {c.mode === "live" ? "live" : "desired"} object matches between {c.from.environment} and {c.to.environment}
                {c.mode === "live" ? ". Try Git vs Git to compare what each is supposed to run." : ". Try live vs live to compare what actually runs."}
              </p>
            </EmptyState>
          ) : (
            <ul className="space-y-2">
              {c.objects.map((o, i) => (
                <li key={o.key} className="relative rounded-lg border border-slate-200 bg-white">
                  {/* Beside the summary, not in it: a link inside a summary is a control inside a control. */}
                  <Link href={objectPagePath(o.state === "only-to" ? c.to.environment : c.from.environment, o.key)} className="absolute top-2 right-3 text-xs text-blue-700 hover:underline">
                    open<span className="sr-only"> {o.kind} {o.namespace ? `${o.namespace}/` : ""}{o.name}</span>
                  </Link>
                  <details open={o.state === "differs" && differsBefore[i]! < OPEN_DIFFERENCES}>
                    <summary className="flex cursor-pointer flex-wrap items-center gap-2 py-2 pr-14 pl-3 text-sm">
                      <span className="font-medium">
                        {o.kind} {o.namespace ? `${o.namespace}/` : ""}
                        {o.name}
                      </span>
                      {o.state === "differs" ? (
                        <Pill tone="amber">{o.fields.length === 1 ? "1 field differs" : `${o.fields.length} fields differ`}</Pill>
                      ) : (
                        <Pill tone="slate">only in {o.state === "only-from" ? c.from.environment : c.to.environment}</Pill>
                      )}
                    </summary>
                    {o.fields.length > 0 && (
                      <div className="overflow-x-auto border-t border-slate-100">
                        <table className="min-w-full text-left text-xs">
                          <thead className="text-slate-500">
                            <tr>
                              <th scope="col" className="px-3 py-1 font-medium">Field</th>
                              <th scope="col" className="px-3 py-1 font-medium">{c.from.environment}</th>
                              <th scope="col" className="px-3 py-1 font-medium">{c.to.environment}</th>
                            </tr>
                          </thead>
                          <tbody className="divide-y divide-slate-100 font-mono">
                            {o.fields.map((f) => (
                              <tr key={f.path} className="align-top">
                                <td className="px-3 py-1 [overflow-wrap:anywhere]">{f.path}</td>
                                <td className="px-3 py-1 text-red-800 [overflow-wrap:anywhere]">{f.kind === "added" ? <em className="font-sans text-slate-500">absent</em> : valueText(f.from)}</td>
                                <td className="px-3 py-1 text-green-800 [overflow-wrap:anywhere]">{f.kind === "removed" ? <em className="font-sans text-slate-500">absent</em> : valueText(f.to)}</td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </div>
                    )}
                  </details>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

/** What one side runs: one revision, or (applications with sources of their own) each application its own. */
export function SideRevision({ side, mode }: { side: CompareDto["from"]; mode: CompareDto["mode"] }) {
  if (side.perApplication) return <p className="text-sm text-slate-600">Each application {mode === "live" ? "runs" : "is compared at"} its own commit (see Applications below).</p>;
  return (
    <>
      <p className="text-xs text-slate-500">{mode === "live" ? "running" : "Git at"}</p>
      <RevisionLine rev={side.revision} />
    </>
  );
}
