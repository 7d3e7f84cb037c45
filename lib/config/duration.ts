// Durations in config read like "90s", "10m", "2h", "7d" (or combinations: "1h30m").
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  if (!/^(\d+(?:\.\d+)?(ms|s|m|h|d|w))+$/.test(trimmed)) return null;
  let total = 0;
  for (const match of trimmed.matchAll(PART)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? 0);
  }
  return total;
}

/**
 * A duration for people, in messages and on pages: "350 ms", "45s", "12 min",
 * "3 h 5 min", "2 d 4 h"; "—" when there is none. The one formatter of
 * durations (lib/dashboard/format re-exports it); badges use the shorter
 * formatAge ("3m", "2h 5m").
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
