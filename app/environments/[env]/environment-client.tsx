"use client";
// The environment page in the browser: its state, controller, revisions and
// alerts, polled; the drift list and the panels around it live beside it.
import Link from "next/link";
import { Breadcrumb } from "@/components/breadcrumb";
import { useMemo } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { PauseActionSlot } from "@/components/action-slots";
import { StaleDataNotice } from "@/components/query-state";
import { RevisionLine } from "@/components/revision";
import { Pill, StatusBadge } from "@/components/status-badge";
import { Ago, Time, useNow } from "@/components/time";
import { useSession } from "@/components/use-session";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { DriftListDto, EnvironmentDetailDto } from "@/lib/api/contract";
import { plural } from "@/lib/dashboard/format";
import { Panel, RefreshNow, PauseBanner } from "./environment-panels-client";
import { RollbackGuidance } from "@/components/rollback-guidance";
import { ApplicationRevisions } from "@/components/application-revisions";
import { ControllerRollup } from "@/components/controller-rollup";
import { ConditionDetail } from "@/components/controller-condition";
import { DriftSection } from "./environment-drift-client";
import { HelmReleasePanel } from "@/components/helm/helm-release-panel";
import { RolloutHealth } from "@/components/rollout-health";

export function EnvironmentClient({ initial, initialDrift, initialFilters }: { initial: EnvironmentDetailDto; initialDrift: DriftListDto | null; initialFilters: string }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.environment(initial.name),
    queryFn: () => fetchJson<EnvironmentDetailDto>(`/api/environments/${encodeURIComponent(initial.name)}`),
    initialData: initial,
    refetchInterval: useFallbackPoll(),
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
            {env.source.branch ? (
              <>
                {env.source.repository ?? "no repository"} · {env.source.branch} · <code>{env.source.path}</code>
              </>
            ) : (
              "applications discovered from the cluster"
            )}
            {env.description ? ` · ${env.description}` : ""} · collected <Ago iso={env.lastCollectedAt} now={now} /> ·{" "}
            <a href={`/reports/incident?env=${encodeURIComponent(env.name)}`} className="text-blue-700 underline">
              incident report
            </a>{" "}
            ·{" "}
            <a href={`/environments/${encodeURIComponent(env.name)}/applications`} className="text-blue-700 underline">
              applications
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
                {/* One application's alert (the title names it): its page says what it runs and why it is behind. */}
                {a.application && (
                  <>
                    {" "}
                    <Link href={`/environments/${encodeURIComponent(env.name)}/applications/${encodeURIComponent(a.application)}`} className="text-xs text-blue-700 hover:underline">
                      Open {a.application} →
                    </Link>
                  </>
                )}
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

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Panel title="Revisions">
          {env.applicationRevisions ? (
            <ApplicationRevisions environment={env.name} applications={env.applicationRevisions} now={now} />
          ) : (
            <dl className="space-y-2 text-sm">
              <div>
                <dt className="text-slate-500">
                  Approved (newest commit on {env.source.branch} changing what this environment renders)
                </dt>
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
                <div>
                  <dt className="sr-only">Behind</dt>
                  <dd className="rounded bg-violet-50 px-2 py-1 text-violet-950">
                    Behind by {plural(env.behind.commits, "approved commit")} since <Time iso={env.behind.since} /> (<Ago iso={env.behind.since} now={now} />).
                  </dd>
                </div>
              )}
            </dl>
          )}
        </Panel>

        <Panel title="Controller">
          {env.controllerRollup ? (
            <ControllerRollup rollup={env.controllerRollup} now={now} />
          ) : !ctrl ? (
            <p className="text-sm text-slate-600">No GitOps controller is configured; the applied revision is inferred from live state.</p>
          ) : (
            <div className="space-y-2 text-sm">
              <p>
                <span className="font-mono text-xs">{ctrl.ref}</span> ({ctrl.type === "flux" ? "Flux" : "Argo CD"}) —{" "}
                {!ctrl.found ? <Pill tone="red">not found in the cluster</Pill> : <Pill tone={ctrl.ready === "True" ? "green" : ctrl.ready === "False" ? "red" : "slate"}>{ctrl.health ?? `Ready: ${ctrl.ready}`}</Pill>}{" "}
                {ctrl.suspended && <Pill tone="sky">suspended{ctrl.suspendedBy ? ` by ${ctrl.suspendedBy.manager}` : ""}</Pill>}
                {ctrl.manualSync && <Pill tone="slate">manual sync</Pill>}
              </p>
              {ctrl.conditions.length > 0 && (
                <ul className="divide-y divide-slate-100 text-xs" aria-label="Controller conditions">
                  {ctrl.conditions.map((c, i) => {
                    const failing = ctrl.failure !== null && c.object === ctrl.failure.object && c.type === ctrl.failure.type;
                    return (
                      <li key={i} className={`py-1.5 ${failing ? "text-red-800" : ""}`}>
                        <span className="font-mono [overflow-wrap:anywhere]">{c.object}</span> <ConditionDetail condition={c} now={now} />
                      </li>
                    );
                  })}
                </ul>
              )}
            </div>
          )}
        </Panel>
      </div>

      {/* An environment of many applications: a HelmRelease among them shows its release on its own page. */}
      {!env.controllerRollup && ctrl?.helm && <HelmReleasePanel release={ctrl.helm} />}

      {env.rolloutCounts.total > 0 && (
        <Panel title="Rollout health">
          <RolloutHealth rollout={env.rollout} rolloutCounts={env.rolloutCounts} />
        </Panel>
      )}

      <DriftSection env={env} initial={initialDrift} initialFilters={initialFilters} now={now} session={session} />

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
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
          {env.source.repository === null ? (
            <p className="text-sm text-slate-600">
              {env.name}&apos;s applications follow sources of their own: roll one back by reverting on its repository and branch (its page gives the commands).
              Driftwatch gives no rollback for the environment as a whole.
            </p>
          ) : (
            <RollbackGuidance rollback={env.rollback} scope={{ name: env.name, what: "environment", branch: env.source.branch, path: env.source.path }} />
          )}
        </Panel>
      </div>
    </div>
  );
}
