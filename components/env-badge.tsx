"use client";
import type { EnvironmentBadgeDto } from "@/lib/api/contract";
import { formatLocal, useMounted } from "./time";
import { formatAge } from "@/lib/dashboard/format";

const TONE: Record<EnvironmentBadgeDto["state"], string> = {
  live: "bg-green-50 text-green-900 ring-green-600/30",
  pending: "bg-violet-50 text-violet-900 ring-violet-600/30",
  "not-approved": "bg-slate-50 text-slate-600 ring-slate-300",
  unknown: "bg-slate-50 text-slate-500 ring-slate-300",
};

/** "live in staging since 10:02", "pending in production: source AuthenticationFailed for 2h". */
export function badgeText(b: EnvironmentBadgeDto, mounted: boolean): string {
  const when = (iso: string) => (mounted ? formatLocal(iso) : iso.slice(0, 16).replace("T", " ") + " UTC");
  const where = badgePlace(b);
  switch (b.state) {
    case "live":
      return `live in ${where} since ${b.since ? when(b.since) : "?"}${b.viaDescendant && b.through ? ` (via ${b.through.shortSha})` : ""}${b.inferred ? " (inferred)" : ""}`;
    case "pending":
      return `pending in ${where}: ${b.reason ?? "waiting"}`;
    case "not-approved":
      return `not in ${where} yet`;
    default:
      return `${where}: ${b.reason ?? "unknown"}`;
  }
}

/** "production", or "production · web" when the environment holds several applications. */
export function badgePlace(b: Pick<EnvironmentBadgeDto, "environment" | "application">): string {
  return b.application ? `${b.environment} · ${b.application}` : b.environment;
}

export function EnvBadge({ b, now, compact = false }: { b: EnvironmentBadgeDto; now: number; compact?: boolean }) {
  const mounted = useMounted();
  const title = [
    b.state === "live" && b.since ? `Live since ${new Date(b.since).toISOString()} UTC` : null,
    b.through ? `Applied revision ${b.through.sha}${b.viaDescendant ? " (a later commit that contains this one)" : ""}` : null,
    b.inferred ? "Inferred: no controller reports an applied revision; this is the newest revision whose manifests match live" : null,
    b.reason,
  ]
    .filter(Boolean)
    .join("\n");
  let text: string;
  if (compact) {
    text =
      b.state === "live"
        ? `live ${b.since ? formatAge(now - Date.parse(b.since)) : ""}${b.viaDescendant ? " ↳" : ""}${b.inferred ? " (inferred)" : ""}`
        : b.state === "pending"
          ? `pending${b.reasonSince ? ` ${formatAge(now - Date.parse(b.reasonSince))}` : ""}`
          : b.state === "not-approved"
            ? "not yet"
            : "unknown";
  } else {
    text = badgeText(b, mounted);
  }
  return (
    <span title={title} className={`inline-block max-w-full rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset [overflow-wrap:anywhere] ${TONE[b.state]}`}>
      {text}
    </span>
  );
}
