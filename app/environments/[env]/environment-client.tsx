"use client";
import { Breadcrumb } from "@/components/breadcrumb";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { ClaimActionSlot, PauseActionSlot, ResumeActionSlot } from "@/components/action-slots";
import { CopyButton } from "@/components/copy-button";
import { DriftTable } from "@/components/drift-table";
import { EmptyState } from "@/components/empty-state";
import { ErrorBlock, LoadingBlock, StaleDataNotice } from "@/components/query-state";
import { RevisionLine } from "@/components/revision";
import { RunProgressLine } from "@/components/run-progress";
import { Pill, StatusBadge } from "@/components/status-badge";
import { Ago, Time, useNow } from "@/components/time";
import { canOperate, useSession } from "@/components/use-session";
import { POLL_MS, fetchJson, queryKeys, sendJson, type SessionInfo } from "@/lib/dashboard/client";
import type { DriftListDto, DriftSort, EnvironmentDetailDto, PauseDto, RunDto } from "@/lib/dashboard/dto";
import { plural } from "@/lib/dashboard/format";

function Panel({ title, children, id }: { title: string; children: React.ReactNode; id?: string }) {
  return (
    <section aria-labelledby={id ?? title} className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
      <h2 id={id ?? title} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

function RefreshNow({ env, active, session, onDone, now }: { env: string; active: RunDto | null; session: SessionInfo | null; onDone: () => void; now: number }) {
  const [runId, setRunId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = useQuery({
    queryKey: queryKeys.run(runId ?? 0),
    queryFn: () => fetchJson<RunDto>(`/api/runs/${runId}`),
    enabled: runId !== null,
    refetchInterval: (q) => (q.state.data && ["succeeded", "partial", "failed"].includes(q.state.data.status) ? false : 1_000),
  });
  const finished = run.data && ["succeeded", "partial", "failed"].includes(run.data.status);
  const done = useRef<number | null>(null);
  useEffect(() => {
    if (finished && runId !== null && done.current !== runId) {
      done.current = runId;
      onDone();
    }
  }, [finished, runId, onDone]);
  const shown = run.data ?? active;
  const busy = (runId !== null && !finished) || (active !== null && runId === null);
  return (
    <div className="flex flex-col items-start gap-1 sm:items-end">
      {canOperate(session) && (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setError(null);
            try {
              const r = await sendJson<{ runId: number }>("POST", `/api/environments/${encodeURIComponent(env)}/refresh`, session?.csrfToken ?? null);
              setRunId(r.runId);
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
            }
          }}
          className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:bg-slate-400"
        >
          {busy ? "Collecting…" : "Refresh now"}
        </button>
      )}
      <p aria-live="polite" className="text-sm">
        {shown && <RunProgressLine run={shown} now={now} />}
        {error && <span className="text-red-800">{error}</span>}
      </p>
    </div>
  );
}

function PauseBanner({ pauses, now, session }: { pauses: PauseDto[]; now: number; session: SessionInfo | null }) {
  if (pauses.length === 0) return null;
  return (
    <div className="space-y-2">
      {pauses.map((p) => (
        <div key={p.id} role="status" className={`rounded-lg border px-4 py-3 text-sm ${p.unattributed ? "border-amber-300 bg-amber-50 text-amber-950" : "border-sky-300 bg-sky-50 text-sky-950"}`}>
          <p className="font-semibold">
            {p.unattributed ? "Unattributed pause" : "Reconciliation paused"}
            {p.controllerRef ? `: ${p.controllerRef}` : " for the whole environment"}
            {p.expired && <span className="ml-2 rounded bg-red-100 px-1.5 text-red-800">expired</span>}
          </p>
          {p.unattributed ? (
            <p>
              Seen suspended in the cluster <Ago iso={p.startedAt} now={now} /> with no record in Driftwatch. Last written by manager <code>{p.detectedManager ?? "unknown"}</code>
              {p.detectedAt && (
                <>
                  {" "}
                  at <Time iso={p.detectedAt} />
                </>
              )}
              . Someone should take ownership with a reason and an expiry.
            </p>
          ) : (
            <p>
              By <strong>{p.createdBy?.displayName ?? p.createdBy?.username ?? "unknown"}</strong> <Ago iso={p.startedAt} now={now} />
              {p.reason && <> — “{p.reason}”</>}
              {p.expiresAt && (
                <>
                  . {p.expired ? "Expired" : "Until"} <Time iso={p.expiresAt} /> (<Ago iso={p.expiresAt} now={now} />)
                </>
              )}
              {p.incidentUrl && (
                <>
                  {" "}
                  ·{" "}
                  <a href={p.incidentUrl} className="underline" rel="noreferrer" target="_blank">
                    incident
                  </a>
                </>
              )}
              {p.executed ? " · suspended on the controller" : " · recorded only (no write access to the controller)"}
            </p>
          )}
          <ResumeActionSlot pause={p} session={session} />
        </div>
      ))}
    </div>
  );
}

const FILTER_KEYS = ["type", "kind", "namespace", "owner", "actor", "q", "status", "sort", "dir"] as const;

function DriftSection({ env, initial, initialFilters, now, session }: { env: EnvironmentDetailDto; initial: DriftListDto | null; initialFilters: string; now: number; session: SessionInfo | null }) {
  const router = useRouter();
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
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
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
    refetchInterval: POLL_MS,
  });
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

      {q.isError && !q.data ? (
        <ErrorBlock error={q.error} onRetry={() => void q.refetch()} />
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

export function EnvironmentClient({ initial, initialDrift, initialFilters }: { initial: EnvironmentDetailDto; initialDrift: DriftListDto | null; initialFilters: string }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.environment(initial.name),
    queryFn: () => fetchJson<EnvironmentDetailDto>(`/api/environments/${encodeURIComponent(initial.name)}`),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const env = q.data;
  const now = useNow(env.now);
  const session = useSession().data ?? null;
  const ctrl = env.controller;
  const onRunDone = useMemo(
    () => () => {
      void qc.invalidateQueries({ queryKey: queryKeys.environment(initial.name) });
      void qc.invalidateQueries({ queryKey: queryKeys.driftOfEnvironment(initial.name) });
    },
    [qc, initial.name],
  );

  return (
    <div className="space-y-5">
      <Breadcrumb trail={[{ href: "/", label: "Environments" }]} current={env.name} />
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <div className="flex flex-wrap items-center gap-2">
            <h1 className="text-2xl font-semibold tracking-tight">{env.name}</h1>
            {env.flags.length ? env.flags.map((f) => <StatusBadge key={f.status} status={f.status} reason={f.reason} />) : <StatusBadge status={env.status} reason={env.statusReason} />}
          </div>
          <p className="text-sm text-slate-600">{env.statusReason}</p>
          <p className="text-xs text-slate-500">
            {env.source.repository ?? "no repository"} · {env.source.branch} · <code>{env.source.path}</code>
            {env.description ? ` · ${env.description}` : ""} · collected <Ago iso={env.lastCollectedAt} now={now} /> ·{" "}
            <a href={`/reports/incident?env=${encodeURIComponent(env.name)}`} className="text-blue-700 hover:underline">
              incident report
            </a>
          </p>
        </div>
        <RefreshNow env={env.name} active={env.activeRun} session={session} onDone={onRunDone} now={now} />
      </header>

      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
      {env.lastError && env.status === "Collection failing" && (
        <div role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900">
          <p className="font-semibold">The last collection failed: showing the last good state from <Ago iso={env.lastGoodCollectedAt} now={now} />.</p>
          <p>
            {env.lastError.category}: {env.lastError.message}
          </p>
        </div>
      )}
      <PauseBanner pauses={env.pauses} now={now} session={session} />
      <PauseActionSlot environment={env.name} session={session} activePause={env.pauses.some((p) => !p.endedAt)} />
      {env.lastRun && env.lastRun.errors.length > 0 && env.lastRun.status !== "running" && (
        <section aria-labelledby="run-problems-heading" className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-950">
          <h2 id="run-problems-heading" className="mb-1 text-base font-semibold">
            Last collection: {env.lastRun.status === "partial" ? "partial" : env.lastRun.status} · {env.lastRun.errors.length} problem{env.lastRun.errors.length === 1 ? "" : "s"}
          </h2>
          <ul className="list-disc space-y-1 pl-5">
            {env.lastRun.errors.slice(0, 20).map((e, i) => (
              <li key={i}>
                <span className="font-mono text-xs">[{e.category}]</span> {e.path ? <code>{`${e.path}${e.line ? `:${e.line}` : ""}`}</code> : null} {e.resource ? <code>{e.resource}</code> : null} {e.message}
              </li>
            ))}
          </ul>
          {env.lastRun.status === "partial" && <p className="mt-1 text-xs">What could not be read keeps its last good state; everything else was compared.</p>}
        </section>
      )}

      {env.alerts.length > 0 && (
        <section aria-labelledby="alerts-heading" className="rounded-lg border border-red-200 bg-white p-4">
          <h2 id="alerts-heading" className="mb-2 text-base font-semibold text-red-900">
            Open alerts
          </h2>
          <ul className="space-y-2 text-sm">
            {env.alerts.map((a) => (
              <li key={a.id}>
                <Pill tone={a.severity === "critical" ? "red" : "amber"}>{a.severity}</Pill> <strong>{a.title}</strong> <Ago iso={a.openedAt} now={now} className="text-xs text-slate-500" />
                {a.runbook && (
                  <p className="mt-0.5 text-slate-700">
                    What to do:{" "}
                    {/^https?:\/\//.test(a.runbook) ? (
                      <a href={a.runbook} className="text-blue-700 underline" target="_blank" rel="noreferrer">
                        runbook
                      </a>
                    ) : (
                      a.runbook
                    )}
                  </p>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}

      <div className="grid gap-4 lg:grid-cols-2">
        <Panel title="Revisions">
          <dl className="space-y-2 text-sm">
            <div>
              <dt className="text-slate-500">Approved (newest commit on {env.source.branch} changing what this environment renders)</dt>
              <dd>
                <RevisionLine rev={env.approved}>{env.approved?.committedAt && <Ago iso={env.approved.committedAt} now={now} className="text-xs text-slate-500" />}</RevisionLine>
              </dd>
            </div>
            <div>
              <dt className="text-slate-500">Applied {env.appliedSource === "inferred" ? "(inferred from live state)" : env.appliedSource === "controller" ? "(reported by the controller)" : ""}</dt>
              <dd>
                <RevisionLine rev={env.applied}>
                  {env.appliedSince && (
                    <span className="text-xs text-slate-500">
                      since <Time iso={env.appliedSince} />
                    </span>
                  )}
                </RevisionLine>
              </dd>
            </div>
            {env.behind && (
              <p className="rounded bg-violet-50 px-2 py-1 text-violet-950">
                Behind by {plural(env.behind.commits, "approved commit")} since <Time iso={env.behind.since} /> (<Ago iso={env.behind.since} now={now} />).
              </p>
            )}
          </dl>
        </Panel>

        <Panel title="Controller">
          {!ctrl ? (
            <p className="text-sm text-slate-600">No GitOps controller is configured; the applied revision is inferred from live state.</p>
          ) : (
            <div className="space-y-2 text-sm">
              <p>
                <span className="font-mono text-xs">{ctrl.ref}</span> ({ctrl.type === "flux" ? "Flux" : "Argo CD"}) —{" "}
                {!ctrl.found ? <Pill tone="red">not found in the cluster</Pill> : <Pill tone={ctrl.ready === "True" ? "green" : ctrl.ready === "False" ? "red" : "slate"}>{ctrl.health ?? `Ready: ${ctrl.ready}`}</Pill>}{" "}
                {ctrl.suspended && <Pill tone="sky">suspended{ctrl.suspendedBy ? ` by ${ctrl.suspendedBy.manager}` : ""}</Pill>}
              </p>
              {ctrl.conditions.length > 0 && (
                <ul className="divide-y divide-slate-100 text-xs" aria-label="Controller conditions">
                  {ctrl.conditions.map((c, i) => {
                    const failing = ctrl.failure !== null && c.object === ctrl.failure.object && c.type === ctrl.failure.type;
                    return (
                      <li key={i} className={`py-1.5 ${failing ? "text-red-800" : ""}`}>
                        <span className="font-mono [overflow-wrap:anywhere]">{c.object}</span>{" "}
                        <strong>
                          {c.type}={c.status}
                        </strong>
                        {c.reason && <> · {c.reason}</>}
                        {c.lastTransitionTime && (
                          <>
                            {" "}
                            · since <Ago iso={c.lastTransitionTime} now={now} />
                          </>
                        )}
                        {c.message && <span className="block text-slate-600 [overflow-wrap:anywhere]">{c.message}</span>}
                      </li>
                    );
                  })}
                </ul>
              )}
            </div>
          )}
        </Panel>
      </div>

      {env.rollout.length > 0 && (
        <Panel title="Rollout health">
          <div className="overflow-x-auto">
            <table className="min-w-full text-left text-sm">
              <thead className="text-xs text-slate-500">
                <tr>
                  <th scope="col" className="py-1 pr-3 font-medium">Workload</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Ready / updated / desired</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Images</th>
                  <th scope="col" className="py-1 font-medium">State</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {env.rollout.map((r) => (
                  <tr key={r.key} className="align-top">
                    <td className="py-1 pr-3">
                      {r.kind} {r.namespace}/{r.name}
                    </td>
                    <td className="py-1 pr-3 tabular-nums">
                      {r.readyReplicas ?? 0} / {r.updatedReplicas ?? 0} / {r.replicas ?? 0}
                    </td>
                    <td className="py-1 pr-3 font-mono text-xs">{r.images.join(", ")}</td>
                    <td className="py-1">{r.rolledOut ? <Pill tone="green">rolled out</Pill> : <Pill tone="amber">{r.message ?? "rolling out"}</Pill>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Panel>
      )}

      <DriftSection env={env} initial={initialDrift} initialFilters={initialFilters} now={now} session={session} />

      <div className="grid gap-4 lg:grid-cols-2">
        <Panel title="Ignored by rule">
          {Object.keys(env.ignored.byRule).length === 0 ? (
            <p className="text-sm text-slate-600">
              {env.ignored.total ? `${env.ignored.total} difference${env.ignored.total === 1 ? "" : "s"} hidden by ignore rules in the last collection.` : "No differences are hidden by ignore rules."} Ignore rules live in{" "}
              <code>driftwatch.yaml</code> under the environment&apos;s <code>ignore:</code>.
            </p>
          ) : (
            <table className="text-sm">
              <tbody>
                {Object.entries(env.ignored.byRule).map(([rule, n]) => (
                  <tr key={rule}>
                    <td className="pr-4 font-mono text-xs">{rule}</td>
                    <td className="tabular-nums">{n}</td>
                  </tr>
                ))}
              </tbody>
              {env.ignored.total !== null && (
                <tfoot>
                  <tr>
                    <td className="pr-4 pt-1 text-slate-500">all objects, last collection</td>
                    <td className="pt-1 tabular-nums">{env.ignored.total}</td>
                  </tr>
                </tfoot>
              )}
            </table>
          )}
        </Panel>

        <Panel title="Rollback guidance" id="rollback">
          {env.rollback.targets.length === 0 ? (
            <p className="text-sm text-slate-600">No earlier applied revision is recorded for {env.name} yet.</p>
          ) : (
            <div className="space-y-3 text-sm">
              <p className="text-slate-600">
                To return {env.name} to an earlier revision, revert the commits after it on <code>{env.source.branch}</code> and merge that through your normal review.
                Driftwatch never pushes. Current: <RevisionLine rev={env.rollback.current} />
              </p>
              <ol className="space-y-3">
                {env.rollback.targets.slice(0, ROLLBACK_SHOWN).map((t) => (
                  <RollbackTarget key={t.revision.sha} t={t} env={env} />
                ))}
              </ol>
              {env.rollback.targets.length > ROLLBACK_SHOWN && (
                <details>
                  <summary className="cursor-pointer text-blue-700">{env.rollback.targets.length - ROLLBACK_SHOWN} older revisions</summary>
                  <ol className="mt-3 space-y-3">
                    {env.rollback.targets.slice(ROLLBACK_SHOWN).map((t) => (
                      <RollbackTarget key={t.revision.sha} t={t} env={env} />
                    ))}
                  </ol>
                </details>
              )}
            </div>
          )}
        </Panel>
      </div>
    </div>
  );
}

/** The most recent earlier revisions are what an on-call engineer rolls back to; older ones fold away. */
const ROLLBACK_SHOWN = 3;

function RollbackTarget({ t, env }: { t: EnvironmentDetailDto["rollback"]["targets"][number]; env: EnvironmentDetailDto }) {
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
            {t.touchesOtherPaths > 0 && ` ${plural(t.touchesOtherPaths, "commit")} also change${t.touchesOtherPaths === 1 ? "s" : ""} files outside ${env.source.path}; to roll back only this environment:`}
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
