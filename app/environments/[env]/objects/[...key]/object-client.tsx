"use client";
import { useQuery } from "@tanstack/react-query";
import { ClaimActionSlot } from "@/components/action-slots";
import { Breadcrumb } from "@/components/breadcrumb";
import { DataTable } from "@/components/data-table";
import { StaleDataNotice } from "@/components/query-state";
import { RevisionLine, ShaLink } from "@/components/revision";
import { DriftTypeBadge, Pill } from "@/components/status-badge";
import { Ago, Time, useNow } from "@/components/time";
import { useSession } from "@/components/use-session";
import { YamlDiffView } from "@/components/yaml-diff-view";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { ObjectDetailDto } from "@/lib/api/contract";
import { formatDuration, valueText } from "@/lib/dashboard/format";
import { objectApiPath } from "@/lib/dashboard/object-key";

export function ObjectClient({ initial }: { initial: ObjectDetailDto }) {
  const q = useQuery({
    queryKey: queryKeys.object(initial.environment, initial.key),
    queryFn: () => fetchJson<ObjectDetailDto>(objectApiPath(initial.environment, initial.key)),
    initialData: initial,
    refetchInterval: useFallbackPoll(),
  });
  const o = q.data;
  const now = useNow(o.now);
  const session = useSession().data ?? null;
  const d = o.drift;
  const title = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;

  return (
    <div className="space-y-5">
      <Breadcrumb trail={[{ href: "/", label: "Environments" }, { href: `/environments/${o.environment}`, label: o.environment }]} current={title} />
      <header className="space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          {d ? <DriftTypeBadge type={d.type} /> : <Pill tone="green">in sync</Pill>}
          {o.secret && <Pill tone="violet">values hidden</Pill>}
        </div>
        <p className="text-sm text-slate-600">
          <code>{o.apiVersion}</code> in {o.environment}
          {d && (
            <>
              {" "}
              · drifted since <Time iso={d.openedAt} /> (<Ago iso={d.openedAt} now={now} />) · last seen <Ago iso={d.lastSeenAt} now={now} />
            </>
          )}
        </p>
      </header>
      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
        <section aria-labelledby="git-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
          <h2 id="git-heading" className="mb-2 font-semibold">
            From Git
          </h2>
          {o.desired ? (
            <dl className="space-y-1">
              <dt className="text-slate-500">File</dt>
              <dd className="font-mono text-xs [overflow-wrap:anywhere]">
                {o.desired.repositoryUrl && o.desired.revision ? (
                  <a href={`${o.desired.repositoryUrl}/blob/${o.desired.revision.sha}/${o.desired.sourcePath}`} className="text-blue-700 hover:underline" target="_blank" rel="noreferrer">
                    {o.desired.sourcePath}
                  </a>
                ) : (
                  o.desired.sourcePath
                )}
              </dd>
              <dt className="text-slate-500">Commit</dt>
              <dd>
                <RevisionLine rev={o.desired.revision} />
              </dd>
            </dl>
          ) : (
            <p className="text-slate-600">Not in Git: this object exists only in the cluster{d?.type === "Extra" ? ", where the environment's controller or label claims it" : ""}.</p>
          )}
        </section>

        <section aria-labelledby="owner-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm lg:col-span-2">
          <h2 id="owner-heading" className="mb-2 font-semibold">
            Owner
          </h2>
          {!d ? (
            <p className="text-slate-600">Nothing to own: the object matches Git.</p>
          ) : d.claim ? (
            <p>
              Claimed by <strong>{d.claim.owner.displayName ?? d.claim.owner.username}</strong>: “{d.claim.reason}”. Return path: <strong>{d.claim.returnPath}</strong>
              {d.claim.returnPath === "adopt" ? " (change Git to match live)" : " (let Git win)"}. {d.claim.expired ? "Expired" : "Until"} <Time iso={d.claim.expiresAt} />.
              {d.claim.incidentUrl && (
                <>
                  {" "}
                  <a href={d.claim.incidentUrl} className="text-blue-700 underline" target="_blank" rel="noreferrer">
                    Incident
                  </a>
                </>
              )}
            </p>
          ) : (
            <p className="text-red-800">Unowned: nobody has claimed this divergence. Revert it, adopt it into Git, or claim it with a reason and an expiry.</p>
          )}
          {d && !d.claim && <ClaimActionSlot environment={o.environment} driftItemIds={[d.id]} session={session} />}
          {d?.conflict && (
            <p className="mt-2 rounded bg-red-50 px-2 py-1 text-red-900">
              A fight: {d.conflict.managers.join(" and ")} keep overwriting {d.conflict.path ?? "this object"} ({d.conflict.flips} times).
            </p>
          )}
        </section>
      </div>

      {o.changes.length > 0 && (
        <section aria-labelledby="changes-heading" className="space-y-2">
          <h2 id="changes-heading" className="text-lg font-semibold">
            What changed, and who changed it
          </h2>
          <DataTable columns={["Field", "Git", "Live", "Manager", "When"]}>
                {o.changes.map((c, i) => (
                  <tr key={i} className="align-top">
                    <td className="min-w-56 px-3 py-2 font-mono text-xs [overflow-wrap:anywhere]">
                      {c.display}
                      {c.kind !== "changed" && <span className="ml-1 font-sans text-slate-500">({c.kind === "unpruned" ? "removed from Git, still live" : c.kind})</span>}
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">{valueText(c.desired)}</td>
                    <td className="px-3 py-2 font-mono text-xs">{valueText(c.live)}</td>
                    <td className="px-3 py-2">
                      {c.attribution.manager ? <code className="text-xs">{c.attribution.manager}</code> : <span className="text-xs text-slate-500">not recorded</span>}
                      <span className="block text-xs text-slate-500">
                        {[c.attribution.operation, c.attribution.subresource && `/${c.attribution.subresource}`, c.attribution.class].filter(Boolean).join(" · ")}
                      </span>
                    </td>
                    <td className="px-3 py-2">
                      {c.attribution.time ? (
                        <span className="whitespace-nowrap">
                          <Time iso={c.attribution.time} />
                        </span>
                      ) : (
                        // Kubernetes keeps no time for some writes (a new manager of /scale among them): say so, and what we do know.
                        <span className="text-xs text-slate-600">
                          not recorded by Kubernetes
                          {d && (
                            <span className="block whitespace-nowrap">
                              first seen by Driftwatch <Time iso={d.openedAt} />
                            </span>
                          )}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
          </DataTable>
        </section>
      )}

      <section aria-labelledby="diff-heading" className="space-y-2">
        <h2 id="diff-heading" className="text-lg font-semibold">
          Desired vs live
        </h2>
        <p className="text-sm text-slate-600">
          Normalised: server defaults, status and server-managed metadata are left out; quantities are spelled one way.
          {o.secret && " Secret values are never shown, only whether they changed."}
        </p>
        {o.rows.length === 0 ? (
          <p className="text-sm text-slate-600">No stored body for this object yet.</p>
        ) : (
          <YamlDiffView rows={o.rows} changes={o.changes} now={now} leftTitle={o.desired ? `Git (${o.desired.sourcePath})` : "Git (absent)"} rightTitle={o.live ? "Live" : "Live (absent)"} />
        )}
      </section>

      <section aria-labelledby="history-heading" className="space-y-2">
        <h2 id="history-heading" className="text-lg font-semibold">
          Drift history
        </h2>
        {o.history.length === 0 ? (
          <p className="text-sm text-slate-600">This object has never drifted.</p>
        ) : (
          <DataTable columns={["Opened", "Type", "Fields", "By", "Resolved", "Lifetime"]}>
                {o.history.map((h) => (
                  <tr key={h.id} className="align-top">
                    <td className="whitespace-nowrap px-3 py-2">
                      <Time iso={h.openedAt} />
                    </td>
                    <td className="px-3 py-2">
                      <DriftTypeBadge type={h.type} />
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">{h.changes.map((c) => c.display).join(", ") || "—"}</td>
                    <td className="px-3 py-2">{h.attribution.manager ? <code className="text-xs">{h.attribution.manager}</code> : "—"}</td>
                    <td className="px-3 py-2">
                      {h.resolvedAt ? (
                        <>
                          {h.resolution}
                          {h.resolutionSha && (
                            <>
                              {" "}
                              in <ShaLink sha={h.resolutionSha} />
                            </>
                          )}{" "}
                          <span className="text-xs text-slate-500">
                            <Time iso={h.resolvedAt} />
                          </span>
                        </>
                      ) : (
                        <Pill tone="amber">open</Pill>
                      )}
                    </td>
                    <td className="whitespace-nowrap px-3 py-2 tabular-nums">{formatDuration((h.resolvedAt ? Date.parse(h.resolvedAt) : now) - Date.parse(h.openedAt))}</td>
                  </tr>
                ))}
          </DataTable>
        )}
      </section>
    </div>
  );
}
