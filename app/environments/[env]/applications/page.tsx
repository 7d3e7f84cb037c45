import type { Metadata } from "next";
import { sourceText } from "@/lib/dashboard/format";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { applicationListQuery } from "@/lib/api/contract/applications";
import { envParams } from "@/lib/api/contract/params";
import { APPLICATION_STATUSES, rollupWords } from "@/lib/applications/rollup";
import { listApplications } from "@/lib/dashboard/applications";
import { orNotFound } from "@/lib/dashboard/pages";
import { Breadcrumb } from "@/components/breadcrumb";
import { ApplicationStatusBadge } from "@/components/application-status-badge";
import { EmptyState } from "@/components/empty-state";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Applications · ${(await params).env}` };
}

/** An environment's applications, worst first; the filters are a plain GET form, so they work before (and without) scripts. */
export default async function ApplicationsPage({ params, searchParams }: Props) {
  await requireUser();
  const p = envParams.safeParse(await params);
  if (!p.success) notFound();
  const { env } = p.data;
  const sp = await searchParams;
  const raw = Object.fromEntries(Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""));
  const parsed = applicationListQuery.safeParse(raw);
  const query = parsed.success ? parsed.data : applicationListQuery.parse({});
  const list = await orNotFound(listApplications(getPrisma(), env, query));
  const r = list.rollup;
  return (
    <main className="mx-auto max-w-6xl space-y-4 p-6">
      <Breadcrumb trail={[{ href: "/", label: "Environments" }, { href: `/environments/${env}`, label: env }]} current="Applications" />
      <h1 className="text-2xl font-semibold text-slate-900">Applications of {env}</h1>
      <p className="text-sm text-slate-700" aria-label="Rollup">
        {rollupWords(r)}
      </p>
      <form method="get" className="flex flex-wrap items-end gap-3 text-sm" aria-label="Filter applications">
        <label className="flex flex-col">
          Search
          <input name="q" defaultValue={query.q ?? ""} className="rounded border border-slate-300 px-2 py-1" placeholder="name, path, repository" />
        </label>
        <label className="flex flex-col">
          Status
          <select name="status" defaultValue={query.status?.join(",") ?? ""} className="rounded border border-slate-300 px-2 py-1">
            <option value="">any</option>
            {APPLICATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col">
          Removed
          <select name="removed" defaultValue={query.removed} className="rounded border border-slate-300 px-2 py-1">
            <option value="exclude">hide</option>
            <option value="include">show</option>
            <option value="only">only</option>
          </select>
        </label>
        <button type="submit" className="rounded bg-slate-800 px-3 py-1 text-white">
          Filter
        </button>
        {!parsed.success && <span className="text-red-700">Some filters were not understood and were left out.</span>}
      </form>
      {list.applications.length === 0 && r.total === 0 && list.collectedAt ? (
        <EmptyState title={`${env} holds no applications`}>
          <p>Its last collection read the cluster and found no Flux Kustomization, HelmRelease or Argo CD Application that this environment discovers.</p>
          <p>
            Applications it held before keep their history:{" "}
            <Link href={`/environments/${env}/applications?removed=only`} className="text-blue-700 underline">
              show removed applications
            </Link>
            .
          </p>
        </EmptyState>
      ) : list.applications.length === 0 ? (
        <EmptyState title="No applications match">
          <p>Change the filters, or wait for the first collection of this environment.</p>
        </EmptyState>
      ) : (
        <table className="w-full text-left text-sm">
          <thead className="text-slate-600">
            <tr>
              <th className="py-2">Application</th>
              <th>Status</th>
              <th>Kind</th>
              <th>Source</th>
              <th>Applied</th>
              <th className="text-right">Objects</th>
              <th className="text-right">Drift</th>
            </tr>
          </thead>
          <tbody>
            {list.applications.map((a) => (
              <tr key={a.name} className="border-t border-slate-200">
                <td className="py-2">
                  <Link href={`/environments/${env}/applications/${encodeURIComponent(a.name)}`} className="text-blue-700 hover:underline">
                    {a.name}
                  </Link>
                </td>
                <td>
                  <ApplicationStatusBadge status={a.status} />
                </td>
                <td>{a.kind}</td>
                <td className="font-mono text-xs">{a.sources.map(sourceText).join(", ")}</td>
                <td className="font-mono text-xs">{a.appliedSha ? a.appliedSha.slice(0, 7) : "—"}</td>
                <td className="text-right">{a.objectCount}</td>
                <td className="text-right">{a.driftCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
