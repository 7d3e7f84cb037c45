"use client";
// The drift list of one environment: filters kept in the URL, infinite paging,
// selection for claiming several items at once.
import { usePathname } from "next/navigation";
import { replaceQueryInAddress } from "@/components/shallow-url";
import { useEffect, useMemo, useState } from "react";
import { useInfiniteQuery } from "@tanstack/react-query";
import { ClaimActionSlot } from "@/components/action-slots";
import { DriftTable } from "@/components/drift-table";
import { EmptyState } from "@/components/empty-state";
import { ErrorBlock, LoadingBlock, StaleDataNotice, useFirstLoadError } from "@/components/query-state";
import { canOperate } from "@/components/use-session";
import { fetchJson, queryKeys, type SessionInfo } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { DriftListDto, DriftSort, EnvironmentDetailDto } from "@/lib/api/contract";

const FILTER_KEYS = ["type", "application", "kind", "namespace", "owner", "actor", "q", "status", "sort", "dir"] as const;

export function DriftSection({ env, initial, initialFilters, now, session }: { env: EnvironmentDetailDto; initial: DriftListDto | null; initialFilters: string; now: number; session: SessionInfo | null }) {
  const pathname = usePathname();
  const [filters, setFilters] = useState(() => new URLSearchParams(initialFilters));
  const [search, setSearch] = useState(filters.get("q") ?? "");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const params = filters.toString();
  const sort = (filters.get("sort") ?? "key") as DriftSort;
  const dir = (filters.get("dir") ?? "asc") as "asc" | "desc";

  const update = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(filters);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === "") next.delete(k);
      else next.set(k, v);
    }
    setFilters(next);
    setSelected(new Set());
    const qs = next.toString();
    replaceQueryInAddress(pathname, qs);
  };

  // Typing searches after a pause, not on every key.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((filters.get("q") ?? "") !== search) update({ q: search || null });
    }, 300);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);

  const q = useInfiniteQuery({
    queryKey: queryKeys.drift(env.name, params),
    queryFn: ({ pageParam }) => fetchJson<DriftListDto>(`/api/environments/${encodeURIComponent(env.name)}/drift?${params}${pageParam ? `${params ? "&" : ""}cursor=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: initial && params === initialFilters ? { pages: [initial], pageParams: [null] } : undefined,
    refetchInterval: useFallbackPoll(),
  });
  const firstLoadError = useFirstLoadError(q, params);
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data]);
  const first = q.data?.pages[0];
  const counts = first?.counts;
  const activeFilters = FILTER_KEYS.filter((k) => k !== "sort" && k !== "dir" && filters.get(k));
  const sel = "rounded border border-slate-300 bg-white px-2 py-1 text-sm";

  return (
    <section aria-labelledby="drift-heading" className="space-y-3">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h2 id="drift-heading" className="text-xl font-semibold">
          Drift
        </h2>
        {first?.total !== null && first?.total !== undefined && (
          <p className="text-sm text-slate-600" aria-live="polite">
            {activeFilters.length ? `${first.total.toLocaleString()} matching · ` : ""}
            {counts ? `${counts.total.toLocaleString()} open, ${counts.unowned.toLocaleString()} unowned, ${counts.human.toLocaleString()} by people` : ""}
          </p>
        )}
      </div>

      <form role="search" className="flex flex-wrap items-end gap-2" onSubmit={(e) => e.preventDefault()} aria-label="Filter drift">
        <label className="flex flex-col text-xs text-slate-600">
          Search
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="name, field, manager…" className={`${sel} w-56`} />
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Type
          <select value={filters.get("type") ?? ""} onChange={(e) => update({ type: e.target.value })} className={sel}>
            <option value="">All types</option>
            {(["Modified", "Missing", "Extra"] as const).map((t) => (
              <option key={t} value={t}>
                {t}
                {counts ? ` (${counts[t]})` : ""}
              </option>
            ))}
          </select>
        </label>
        {env.facets.applications.length > 0 && (
          <label className="flex flex-col text-xs text-slate-600">
            Application
            <select value={filters.get("application") ?? ""} onChange={(e) => update({ application: e.target.value })} className={sel}>
              <option value="">All applications</option>
              {env.facets.applications.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
        )}
        <label className="flex flex-col text-xs text-slate-600">
          Kind
          <select value={filters.get("kind") ?? ""} onChange={(e) => update({ kind: e.target.value })} className={sel}>
            <option value="">All kinds</option>
            {env.facets.kinds.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Namespace
          <select value={filters.get("namespace") ?? ""} onChange={(e) => update({ namespace: e.target.value })} className={sel}>
            <option value="">All namespaces</option>
            {env.facets.namespaces.map((n) => (
              <option key={n || "_"} value={n || "_"}>
                {n || "(cluster-scoped)"}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Owner
          <select value={filters.get("owner") ?? ""} onChange={(e) => update({ owner: e.target.value })} className={sel}>
            <option value="">Owned or not</option>
            <option value="unowned">Unowned{counts ? ` (${counts.unowned})` : ""}</option>
            <option value="owned">Owned (claimed)</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Changed by
          <select value={filters.get("actor") ?? ""} onChange={(e) => update({ actor: e.target.value })} className={sel}>
            <option value="">Anyone</option>
            <option value="human">People{counts ? ` (${counts.human})` : ""}</option>
            <option value="controller">Controllers{counts ? ` (${counts.controller})` : ""}</option>
            <option value="system">System</option>
            <option value="unknown">Not recorded</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Status
          <select value={filters.get("status") ?? "open"} onChange={(e) => update({ status: e.target.value === "open" ? null : e.target.value })} className={sel}>
            <option value="open">Open</option>
            <option value="resolved">Resolved</option>
            <option value="all">All</option>
          </select>
        </label>
        {activeFilters.length > 0 && (
          <button
            type="button"
            onClick={() => {
              setSearch("");
              update(Object.fromEntries(FILTER_KEYS.filter((k) => k !== "sort" && k !== "dir").map((k) => [k, null])));
            }}
            className="rounded px-2 py-1 text-sm text-blue-700 hover:underline"
          >
            Clear filters
          </button>
        )}
      </form>

      <ClaimActionSlot environment={env.name} driftItemIds={[...selected]} session={session} />

      {firstLoadError ? (
        <ErrorBlock error={firstLoadError} onRetry={() => void q.refetch()} />
      ) : !q.data ? (
        <LoadingBlock label="Loading drift…" />
      ) : items.length === 0 ? (
        <EmptyState title={activeFilters.length ? "Nothing matches these filters" : "No drift"}>
          <p>
            {activeFilters.length
              ? "Try fewer filters, or clear them."
              : `Every object in ${env.name} matches Git${env.ignored.total ? `, apart from ${env.ignored.total} difference${env.ignored.total === 1 ? "" : "s"} hidden by ignore rules` : ""}. New drift appears here within a few seconds of a collection.`}
          </p>
        </EmptyState>
      ) : (
        <>
          <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
          <DriftTable
            items={items}
            now={now}
            sort={sort}
            dir={dir}
            onSort={(s) => update({ sort: s === "key" && sort !== "key" ? null : s, dir: s === sort && dir === "asc" ? "desc" : null })}
            selected={selected}
            onSelect={(id, on) =>
              setSelected((prev) => {
                const next = new Set(prev);
                if (on) next.add(id);
                else next.delete(id);
                return next;
              })
            }
            selectable={canOperate(session)}
            showApplication={(env.applications?.total ?? 0) > 1}
          />
          <div className="flex items-center gap-3 text-sm text-slate-600">
            <span>
              Showing {items.length.toLocaleString()}
              {first?.total !== null && first?.total !== undefined ? ` of ${first.total.toLocaleString()}` : ""}
            </span>
            {q.hasNextPage && (
              <button type="button" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage} className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-50">
                {q.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}
