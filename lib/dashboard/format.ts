// Formatting shared by server and client components. Pure; no time zone here
// (the viewer's zone is applied in components/time.tsx).
export { formatAge } from "@/lib/environments/status";
export { formatDuration } from "@/lib/config/duration";

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A JSON value as one short line for tables. */
export function valueText(v: unknown): string {
  if (v === undefined) return "—";
  if (typeof v === "string") return v;
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

/**
 * An application's source in one line: `repository:path@ref (render)` for Git,
 * `chart ref from url` for a chart from a Helm repository or OCI registry.
 */
export function sourceText(s: { url: string; repository: string | null; ref: string; path: string; render: string; chart?: string | null }): string {
  if (s.chart) return `${s.chart} ${s.ref || "(newest)"} from ${s.url}`;
  return `${s.repository ?? s.url}:${s.path}@${s.ref} (${s.render})`;
}
