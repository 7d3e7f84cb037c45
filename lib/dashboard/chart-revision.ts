// What an application released from a chart repository runs, for the lists
// that show each application's revision: its chart and version, not a
// commit. A Flux HelmRelease's stored revisions are the Git commits of the
// Kustomization that declares it, and an Argo CD chart source's are chart
// versions: neither reads as "the commit it runs". Pure.
import type { HelmReleaseSummary } from "@/lib/helm/release-desired";
import { rec, str } from "./mappers";

export interface ChartRevision {
  /** The chart's name. */
  name: string;
  /** What runs: the release Helm last installed (Flux), or the version Argo CD synced; null when nothing is released yet. */
  applied: { version: string; appVersion: string | null } | null;
  /** What Git asks for (a version or a range), only where it is not what runs. */
  approved: string | null;
}

export interface ChartApplication {
  /** The Application row's stored sources. */
  sources: unknown;
  approvedSha: string | null;
  appliedSha: string | null;
  /** A Flux HelmRelease's release as its last collection found it; null for any other application. */
  helm: HelmReleaseSummary | null;
}

/**
 * The chart an application runs, when it renders from a chart in a Helm
 * repository (or OCI registry); null when its source is Git (a chart folder
 * in Git is a commit like any other path). A Flux HelmRelease says it through
 * its release: released chart and version, and Git's only while the release
 * is not known to have it (a range the released version satisfies is not
 * news). An Argo CD chart source's revisions are themselves chart versions.
 */
export function chartRevisionOf(app: ChartApplication): ChartRevision | null {
  const primary = (Array.isArray(app.sources) ? app.sources : []).map(rec).find((s) => s.refOnly !== true);
  const chart = primary ? str(primary.chart) : null;
  if (!primary || !chart) return null;
  if (app.helm) {
    const { released, declared, verdict } = app.helm;
    const applied = released ? { version: released.chart.version, appVersion: released.chart.appVersion } : null;
    const asked = declared?.version ?? null;
    return {
      name: released?.chart.name ?? declared?.chart ?? chart,
      applied,
      approved: asked !== null && verdict?.state !== "released" && asked !== applied?.version ? asked : null,
    };
  }
  const applied = app.appliedSha ? { version: app.appliedSha, appVersion: null } : null;
  const approved = str(primary.approved) ?? app.approvedSha;
  return { name: chart, applied, approved: approved !== null && approved !== applied?.version ? approved : null };
}
