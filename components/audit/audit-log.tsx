"use client";
// The audit log: filters, newest first, older pages on demand, exports of
// exactly the filtered events, and a check of the hash chain.
import { useMemo, useState, type FormEvent } from "react";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { AuditEventDto } from "@/lib/audit/query";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { Field, FormError, buttonClass, inputClass, secondaryButtonClass } from "@/components/auth/form-bits";

/** What the audit API returns for one event. */
export type AuditEventView = AuditEventDto;

export interface AuditFilters {
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  environment?: string;
  q?: string;
}

const ACTION_FAMILIES = ["", "auth.", "user.", "pause.", "claim.", "alert.", "drift.", "revision.", "run.", "webhook."];

function toQuery(f: AuditFilters, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) {
    if (!v) continue;
    // datetime-local has no zone: it is the viewer's local time.
    p.set(k, k === "from" || k === "to" ? new Date(v).toISOString() : v);
  }
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p.toString();
}

function fetchPage(query: string): Promise<{ events: AuditEventView[]; nextBefore: string | null }> {
  return fetchJson(`/api/audit?${query}`);
}

function Json({ value }: { value: unknown }) {
  if (value === null || value === undefined) return null;
  return <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 text-xs">{JSON.stringify(value, null, 2)}</pre>;
}

export function AuditLog({ initialFilters = {} }: { initialFilters?: AuditFilters }) {
  const [draft, setDraft] = useState<AuditFilters>(initialFilters);
  const [filters, setFilters] = useState<AuditFilters>(initialFilters);
  const [open, setOpen] = useState<string | null>(null);
  const query = useMemo(() => toQuery(filters), [filters]);
  const pages = useInfiniteQuery({
    queryKey: queryKeys.audit(query),
    queryFn: ({ pageParam }) => fetchPage(toQuery(filters, pageParam ? { before: pageParam } : {})),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });
  const verify = useQuery({
    queryKey: queryKeys.auditVerify,
    queryFn: () => fetchJson<{ ok: boolean; checked: number; firstBroken?: { id: string; reason: string } }>("/api/audit/verify"),
    enabled: false,
  });
  const events = pages.data?.pages.flatMap((p) => p.events) ?? [];
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));

  function apply(e: FormEvent) {
    e.preventDefault();
    setFilters(draft);
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <a className={secondaryButtonClass} href={`/api/audit?${toQuery(filters, { format: "csv" })}`} download>
            Export CSV
          </a>
          <a className={secondaryButtonClass} href={`/api/audit?${toQuery(filters, { format: "jsonl" })}`} download>
            Export JSON lines
          </a>
          <button type="button" className={secondaryButtonClass} onClick={() => void verify.refetch()} disabled={verify.isFetching}>
            {verify.isFetching ? "Verifying…" : "Verify hash chain"}
          </button>
        </div>
      </div>
      {verify.data && (
        <p role="status" className={`rounded border px-3 py-2 text-sm ${verify.data.ok ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-red-300 bg-red-50 text-red-900"}`}>
          {verify.data.ok
            ? `Chain intact: ${verify.data.checked} events verified.`
            : `Chain broken at event #${verify.data.firstBroken?.id}: ${verify.data.firstBroken?.reason} (${verify.data.checked} events before it verified).`}
        </p>
      )}
      <FormError message={verify.error instanceof Error ? verify.error.message : null} />
      <form onSubmit={apply} className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-3 lg:grid-cols-6" aria-label="Filter the audit log">
        <Field label="From">
          <input type="datetime-local" className={inputClass} value={draft.from ?? ""} onChange={set("from")} />
        </Field>
        <Field label="To">
          <input type="datetime-local" className={inputClass} value={draft.to ?? ""} onChange={set("to")} />
        </Field>
        <Field label="Actor">
          <input className={inputClass} value={draft.actor ?? ""} onChange={set("actor")} placeholder="alice, system…" />
        </Field>
        <Field label="Action">
          <select className={inputClass} value={draft.action ?? ""} onChange={set("action")}>
            {ACTION_FAMILIES.map((a) => (
              <option key={a} value={a}>
                {a ? `${a}*` : "any"}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Environment">
          <input className={inputClass} value={draft.environment ?? ""} onChange={set("environment")} />
        </Field>
        <Field label="Text">
          <input className={inputClass} value={draft.q ?? ""} onChange={set("q")} placeholder="reason, target…" />
        </Field>
        <div className="flex gap-2 sm:col-span-3 lg:col-span-6">
          <button type="submit" className={buttonClass}>
            Apply filters
          </button>
          <button
            type="button"
            className={secondaryButtonClass}
            onClick={() => {
              setDraft({});
              setFilters({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <FormError message={pages.error instanceof Error ? pages.error.message : null} />
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="min-w-full text-sm">
          <caption className="sr-only">Audit events, newest first</caption>
          <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="px-3 py-2">#</th>
              <th scope="col" className="px-3 py-2">When (UTC)</th>
              <th scope="col" className="px-3 py-2">Who</th>
              <th scope="col" className="px-3 py-2">What</th>
              <th scope="col" className="px-3 py-2">Target</th>
              <th scope="col" className="px-3 py-2">Environment</th>
              <th scope="col" className="px-3 py-2">Reason</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {events.map((e) => (
              <tr key={e.id} className="align-top">
                <td className="px-3 py-2 text-slate-500">
                  <button type="button" className="underline decoration-dotted" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                    {e.id}
                  </button>
                </td>
                <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{e.at.replace("T", " ").replace(/\.\d+Z$/, "")}</td>
                <td className="px-3 py-2">
                  {e.actorName}
                  {e.actorType !== "user" && <span className="ml-1 text-xs text-slate-500">({e.actorType})</span>}
                </td>
                <td className="px-3 py-2 font-mono text-xs">{e.action}</td>
                <td className="max-w-xs break-all px-3 py-2 text-xs">
                  {e.targetType}: {e.targetId}
                </td>
                <td className="px-3 py-2">{e.environment ?? "—"}</td>
                <td className="max-w-md px-3 py-2">
                  {e.reason}
                  {open === e.id && (
                    <div className="mt-2 space-y-1">
                      {e.before !== null && e.before !== undefined && <p className="text-xs font-medium text-slate-500">Before</p>}
                      <Json value={e.before} />
                      {e.after !== null && e.after !== undefined && <p className="text-xs font-medium text-slate-500">After</p>}
                      <Json value={e.after} />
                      <p className="break-all font-mono text-[10px] text-slate-400">sha256 {e.hash}</p>
                    </div>
                  )}
                </td>
              </tr>
            ))}
            {events.length === 0 && !pages.isLoading && (
              <tr>
                <td colSpan={7} className="px-3 py-6 text-center text-slate-500">
                  No audit events match these filters.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {pages.hasNextPage && (
        <button type="button" className={secondaryButtonClass} onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? "Loading…" : "Load older events"}
        </button>
      )}
    </div>
  );
}
