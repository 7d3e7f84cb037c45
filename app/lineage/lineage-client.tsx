"use client";
import { useQuery } from "@tanstack/react-query";
import { DataTable } from "@/components/data-table";
import { EmptyState } from "@/components/empty-state";
import { badgePlace, EnvBadge } from "@/components/env-badge";
import { StaleDataNotice } from "@/components/query-state";
import { RevisionLine, RevisionText } from "@/components/revision";
import { ShaLookup } from "@/components/sha-lookup";
import { Ago, useNow } from "@/components/time";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { LineageDto } from "@/lib/api/contract";

export function LineageClient({ initial }: { initial: LineageDto }) {
  const q = useQuery({ queryKey: queryKeys.lineage, queryFn: () => fetchJson<LineageDto>("/api/lineage"), initialData: initial, refetchInterval: useFallbackPoll() });
  const l = q.data;
  const now = useNow(l.now);
  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Lineage</h1>
          <p className="text-sm text-slate-600">Which commit is live where. A later commit that contains a change counts as carrying it (marked ↳).</p>
        </div>
        <ShaLookup />
      </div>
      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
      <EnvironmentStrip environments={l.environments} />
      {l.repositories.length === 0 ? (
        <EmptyState title="No commits yet">
          <p>Commits appear once the collector has fetched each environment&apos;s repository. If this stays empty, check the environments page for collection errors.</p>
        </EmptyState>
      ) : (
        l.repositories.map((repo) =>
          repo.branches.map((b) => {
            return (
              <section key={`${repo.name}/${b.branch}`} aria-labelledby={`h-${repo.name}-${b.branch}`} className="space-y-2">
                <h2 id={`h-${repo.name}-${b.branch}`} className="text-lg font-semibold">
                  {repo.name} · {b.branch}
                  <span className="ml-2 text-sm font-normal text-slate-500">followed by {b.environments.join(", ")}</span>
                </h2>
                {b.commits.length === 0 ? (
                  <p className="text-sm text-slate-600">No commits on this branch touch an environment&apos;s path yet.</p>
                ) : (
                  <DataTable columns={["Commit", ...b.tracks.map(badgePlace)]}>
                        {b.commits.map((c) => (
                          <tr key={c.sha} className="align-top">
                            <td className="max-w-md px-3 py-2">
                              <RevisionLine rev={c}>{c.committedAt && <Ago iso={c.committedAt} now={now} className="text-xs text-slate-500" />}</RevisionLine>
                            </td>
                            {b.tracks.map((t) => {
                              const badge = c.badges.find((x) => x.environment === t.environment && x.application === t.application);
                              return <td key={badgePlace(t)} className="px-3 py-2">{badge ? <EnvBadge b={badge} now={now} compact /> : null}</td>;
                            })}
                          </tr>
                        ))}
                  </DataTable>
                )}
              </section>
            );
          }),
        )
      )}
    </div>
  );
}

/** Each environment in promotion order with what it runs; one whose applications follow sources of their own runs no one revision. */
export function EnvironmentStrip({ environments }: { environments: LineageDto["environments"] }) {
  if (environments.length === 0) return null;
  return (
    <ol className="flex flex-wrap gap-2 text-sm" aria-label="Applied revision per environment, in promotion order">
      {environments.map((e, i) => (
        <li key={e.name} className="flex items-center gap-2">
          {i > 0 && <span aria-hidden="true" className="text-slate-400">→</span>}
          <span className="rounded border border-slate-200 bg-white px-2 py-1">
            <strong>{e.name}</strong>{" "}
            {e.perApplication ? (
              <span className="text-slate-500">per application</span>
            ) : e.applied ? (
              <RevisionText value={e.applied.sha} />
            ) : (
              <span className="text-slate-500">unknown</span>
            )}
          </span>
        </li>
      ))}
    </ol>
  );
}
