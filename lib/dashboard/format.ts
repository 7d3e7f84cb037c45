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
