import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { applicationParams } from "@/lib/api/contract/applications";
import { getApplication } from "@/lib/dashboard/applications";
import { listPauses } from "@/lib/pauses";
import { ApplicationPausePanel } from "@/components/pauses/application-pause-panel";
import { orNotFound } from "@/lib/dashboard/pages";
import { objectPagePath } from "@/lib/dashboard/object-key";
import { Breadcrumb } from "@/components/breadcrumb";
import { ApplicationStatusBadge } from "@/components/application-status-badge";
import { Follows } from "@/components/follows";
import { ApplicationSources } from "@/components/application-sources";
import { RevisionLine, RevisionText } from "@/components/revision";
import { ApplicationRollback } from "@/components/application-rollback";
import { Time } from "@/components/time";
import { sourceText } from "@/lib/dashboard/format";
import { DriftTypeBadge } from "@/components/status-badge";
import { HelmReleasePanel } from "@/components/helm/helm-release-panel";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string; app: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: `${decodeURIComponent(p.app)} · ${p.env}` };
}

/** One application: where it comes from, what it runs, its open drift and the revisions it applied. */
export default async function ApplicationPage({ params }: Props) {
  await requireUser();
  const raw = await params;
  const p = applicationParams.safeParse({ env: raw.env, app: decodeURIComponent(raw.app) });
  if (!p.success) notFound();
  const { env, app } = p.data;
  const db = getPrisma();
  const now = new Date();
  const [detail, active] = await Promise.all([orNotFound(getApplication(db, env, app, now)), listPauses(db, { environment: env, active: true }, now)]);
  const a = detail.application;
  // Its own pauses, and the whole environment's (which hold every application).
  const pauses = active.filter((p) => p.application === a.name || p.application === null);
  return (
    <main className="mx-auto max-w-6xl space-y-4 p-6">
      <Breadcrumb
        trail={[
          { href: "/", label: "Environments" },
          { href: `/environments/${env}`, label: env },
          { href: `/environments/${env}/applications`, label: "Applications" },
        ]}
        current={a.name}
      />
      <h1 className="flex items-center gap-3 text-2xl font-semibold text-slate-900">
        {a.name} <ApplicationStatusBadge status={a.status} />
      </h1>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600">Kind</dt>
        <dd>{a.kind}</dd>
        <dt className="text-slate-600">Controller</dt>
        <dd>
          {a.controller ? `${a.controller.kind} ${a.controller.namespace}/${a.controller.name}` : "none"}
          {/* Synced by hand on purpose: not a pause, and stale when an approved commit waits. */}
          {detail.manualSync && " · manual sync"}
        </dd>
        <dt className="text-slate-600">Source</dt>
        <dd className="font-mono text-xs">{a.sources.map(sourceText).join(", ")}</dd>
        <dt className="text-slate-600">Follows</dt>
        <dd>
          <Follows sources={a.sources} />
        </dd>
        <dt className="text-slate-600">Approved</dt>
        <dd>{detail.approved?.message ? <RevisionLine rev={detail.approved} /> : a.approvedSha ? <RevisionText value={a.approvedSha} /> : "—"}</dd>
        <dt className="text-slate-600">Applied</dt>
        <dd className="flex flex-wrap items-baseline gap-x-2">
          {detail.applied?.message ? <RevisionLine rev={detail.applied} /> : a.appliedSha ? <RevisionText value={a.appliedSha} /> : "—"} {a.appliedSource ? `(${a.appliedSource})` : ""}
        </dd>
        <dt className="text-slate-600">Objects</dt>
        <dd>{a.objectCount}</dd>
        {a.lastError && (
          <>
            <dt className="text-slate-600">Last error</dt>
            <dd className="text-red-700">{a.lastError.message}</dd>
          </>
        )}
        {a.removedAt && (
          <>
            <dt className="text-slate-600">Removed</dt>
            <dd>
              <Time iso={a.removedAt} /> (history kept)
            </dd>
          </>
        )}
      </dl>
      {(a.sources.length > 1 || a.sources.some((s) => s.chart)) && <ApplicationSources sources={a.sources} />}
      {detail.helm && <HelmReleasePanel release={detail.helm} />}
      {!a.removedAt && <ApplicationPausePanel environment={env} application={a.name} pauses={pauses} pausable={a.controller !== null} now={now.toISOString()} />}
      <section aria-label="Open drift">
        <h2 className="text-lg font-semibold text-slate-900">Open drift ({detail.drift.length})</h2>
        {detail.drift.length === 0 ? (
          <p className="text-sm text-slate-700">Live matches Git for this application.</p>
        ) : (
          <ul className="divide-y divide-slate-200 text-sm">
            {detail.drift.map((d) => (
              <li key={d.key} className="flex items-center gap-3 py-1">
                <DriftTypeBadge type={d.type} />
                <Link href={objectPagePath(env, d.key)} className="text-blue-700 hover:underline">
                  {d.kind} {d.namespace ? `${d.namespace}/` : ""}
                  {d.name}
                </Link>
                <span className="text-slate-600">{d.attributionManager ? `by ${d.attributionManager}` : ""}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      {!a.removedAt && <ApplicationRollback detail={detail} />}
      <section aria-label="Applied revisions">
        <h2 className="text-lg font-semibold text-slate-900">Applied revisions</h2>
        <ul className="text-sm">
          {detail.revisions.map((r) => (
            <li key={`${r.sha}${r.firstSeenAt}`} className="flex gap-3 py-0.5">
              {r.revision?.message ? <RevisionLine rev={r.revision} /> : <RevisionText value={r.sha} />}{" "}
              <span className="text-slate-600">
                from <Time iso={r.firstSeenAt} />
              </span>
              <span className="text-slate-600">
                {r.endedAt ? (
                  <>
                    to <Time iso={r.endedAt} />
                  </>
                ) : (
                  "(current)"
                )}
              </span>
              <span className="text-slate-500">{r.source}</span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
