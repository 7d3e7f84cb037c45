"use client";
import Link from "next/link";
import type { EnvironmentSummaryDto } from "@/lib/api/contract";
import { rollupHeadline, rollupParts, rollupWords } from "@/lib/applications/rollup";
import { plural } from "@/lib/dashboard/format";
import { ApplicationStatusBadge } from "./application-status-badge";
import { DriftTypeBadge, Pill, StatusBadge } from "./status-badge";
import { RevisionLine } from "./revision";
import { Ago } from "./time";
import { RunProgressLine } from "./run-progress";

/** The counts per state, each in its status's colour and words, and the worst few as links to their pages. */
function ApplicationsRollup({ env }: { env: EnvironmentSummaryDto }) {
  const r = env.applications;
  if (!r) return null;
  return (
    <div className="space-y-1.5">
      <p>
        <span className="sr-only">{rollupWords(r)}</span>
        <span aria-hidden="true" className="flex flex-wrap items-center gap-1.5">
          <span>
            {rollupHeadline(r)}
            {r.total > 0 && ":"}
          </span>
          {rollupParts(r).map((p) => (
            <ApplicationStatusBadge key={p.bucket} status={p.status} label={p.text} />
          ))}
        </span>
      </p>
      {env.worstApplications.length > 0 && (
        <ul className="space-y-1" aria-label={`Applications of ${env.name} to look at first`}>
          {env.worstApplications.map((a) => (
            <li key={a.name} className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5">
              <Link href={a.href} className="min-w-0 font-medium text-blue-700 wrap-anywhere hover:underline">
                {a.name}
              </Link>
              <ApplicationStatusBadge status={a.status} />
              {a.driftCount > 0 && <span className="text-xs text-slate-500">{plural(a.driftCount, "drift item")}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[7.5rem_1fr] gap-2 py-1.5 text-sm">
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}

export function EnvironmentCard({ env, now }: { env: EnvironmentSummaryDto; now: number }) {
  const ctrl = env.controller;
  const pause = env.pauses[0];
  return (
    <article aria-labelledby={`env-${env.name}`} className="flex min-w-0 flex-col rounded-lg border border-slate-200 bg-white shadow-sm">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-4 py-3">
        <h2 id={`env-${env.name}`} className="mr-auto text-lg font-semibold">
          <Link href={`/environments/${env.name}`} className="hover:underline">
            {env.name}
          </Link>
        </h2>
        <StatusBadge status={env.status} reason={env.statusReason} />
        {env.flags.slice(1).map((f) => (
          <StatusBadge key={f.status} status={f.status} reason={f.reason} size="sm" />
        ))}
      </header>
      <p className="px-4 pt-2 text-sm text-slate-600">{env.statusReason}</p>

      {pause && (
        <div className={`mx-4 mt-2 rounded border px-3 py-2 text-sm ${pause.unattributed ? "border-amber-300 bg-amber-50 text-amber-950" : "border-sky-200 bg-sky-50 text-sky-950"}`}>
          <strong>{pause.unattributed ? "Unattributed pause" : "Paused"}</strong>
          {pause.controllerRef ? ` (${pause.controllerRef})` : ""}{" "}
          {pause.unattributed ? (
          <>
              detected <Ago iso={pause.startedAt} now={now} />, last written by <code>{pause.detectedManager ?? "unknown manager"}</code>. Nobody has taken ownership.
          </>
          ) : (
          <>
              by {pause.createdBy?.displayName ?? pause.createdBy?.username ?? "unknown"} <Ago iso={pause.startedAt} now={now} />
              {pause.reason && <>: “{pause.reason}”</>}
              {pause.expiresAt && (
                <>
                  {" "}
                  {pause.expired ? "— expired " : "— until "}
                  <Ago iso={pause.expiresAt} now={now} />
                </>
              )}
          </>
          )}
        </div>
      )}

      <dl className="divide-y divide-slate-100 px-4 py-2">
        {/* Several applications: the environment's own revisions and controller would be one application's (its first),
            read as the whole environment's. Its applications' states say it instead, the worst named. */}
        {!env.applications && (
          <>
            <Row label="Approved">
              <RevisionLine rev={env.approved}>{env.approved?.committedAt && <Ago iso={env.approved.committedAt} now={now} className="text-xs text-slate-500" />}</RevisionLine>
            </Row>
            <Row label="Applied">
              <RevisionLine rev={env.applied}>
                {env.appliedSince && (
                  <span className="text-xs text-slate-500">
                    since <Ago iso={env.appliedSince} now={now} />
                  </span>
                )}
                {env.appliedSource === "inferred" && (
                  <Pill tone="slate" title="No controller reports it: Driftwatch matched live objects to a recent revision">
                    inferred
                  </Pill>
                )}
              </RevisionLine>
            </Row>
          </>
        )}
        {env.behind && (
          <Row label="Behind">
            <span className="text-violet-900">
              {plural(env.behind.commits, "approved commit")} not applied, for <Ago iso={env.behind.since} now={now} className="font-medium" />
            </span>
          </Row>
        )}
        <Row label="Drift">
          {env.drift.total === 0 ? (
            <span className="text-sync">none</span>
          ) : (
            <span className="flex flex-wrap items-center gap-1.5">
              {(["Modified", "Missing", "Extra"] as const).map((t) =>
                env.drift[t] > 0 ? (
                  <span key={t} className="inline-flex items-center gap-1">
                    <DriftTypeBadge type={t} />
                    <span className="tabular-nums">{env.drift[t]}</span>
                  </span>
                ) : null,
              )}
              {env.drift.unowned > 0 && <Pill tone="red">{env.drift.unowned} unowned</Pill>}
            </span>
          )}
        </Row>
        {env.applications && (
          <Row label="Applications">
            <ApplicationsRollup env={env} />
          </Row>
        )}
        {!env.applications && (
          <Row label="Controller">
            {ctrl ? (
              <span className="block">
                <span className="font-mono text-xs">{ctrl.ref}</span>{" "}
                {!ctrl.found ? (
                  <Pill tone="red">not found</Pill>
                ) : (
                  <Pill tone={ctrl.health === "Degraded" ? "amber" : ctrl.ready === "True" ? "green" : ctrl.ready === "False" ? "red" : "slate"}>{ctrl.health ?? `Ready ${ctrl.ready}`}</Pill>
                )}{" "}
                {ctrl.suspended && <Pill tone="sky">suspended{ctrl.suspendedBy ? ` by ${ctrl.suspendedBy.manager}` : ""}</Pill>}
                {ctrl.manualSync && <Pill tone="slate">manual sync</Pill>}
                {ctrl.failure && (
                  <span className="mt-1 block text-xs text-red-800">
                    {ctrl.failure.object.split("/")[0]} {ctrl.failure.reason ?? ctrl.failure.type}
                    {ctrl.failure.lastTransitionTime && (
                      <>
                        {" "}
                        for <Ago iso={ctrl.failure.lastTransitionTime} now={now} />
                      </>
                    )}
                    {ctrl.failure.message && <span className="block text-slate-600">{ctrl.failure.message}</span>}
                  </span>
                )}
              </span>
            ) : (
              <span className="text-slate-500">none (applied revision inferred from live state)</span>
            )}
          </Row>
        )}
        <Row label="Collected">
          <span>
            <Ago iso={env.lastCollectedAt} now={now} /> · {plural(env.objectCount, "object")}
            {env.lastError && env.status === "Collection failing" && (
              <span className="mt-1 block text-xs text-red-800">
                {env.lastError.category}: {env.lastError.message}
              </span>
            )}
          </span>
        </Row>
        {env.activeRun && (
          <Row label="Collecting">
            <RunProgressLine run={env.activeRun} now={now} />
          </Row>
        )}
      </dl>

      {env.alerts.length > 0 && (
        <ul className="mx-4 mb-3 space-y-1" aria-label={`Open alerts for ${env.name}`}>
          {env.alerts.map((a) => (
            <li key={a.id} className={`rounded px-2 py-1 text-sm ${a.severity === "critical" ? "bg-red-50 text-red-900" : "bg-amber-50 text-amber-900"}`}>
              <span aria-hidden="true">⚠ </span>
              {a.title} <Ago iso={a.openedAt} now={now} className="text-xs opacity-75" />
            </li>
          ))}
        </ul>
      )}
      <footer className="mt-auto flex flex-wrap gap-x-4 gap-y-1 border-t border-slate-100 px-4 py-2 text-sm">
        <Link href={`/environments/${env.name}`} className="font-medium text-blue-700 hover:underline">
          Open {env.name} →
        </Link>
        {env.applications && (
          <Link href={`/environments/${encodeURIComponent(env.name)}/applications`} className="font-medium text-blue-700 hover:underline">
            Applications<span className="sr-only"> of {env.name}</span>
          </Link>
        )}
      </footer>
    </article>
  );
}
