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

export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 60_000) return `${Math.round(ms / 1000)}s`;
  if (abs < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  if (abs < 86_400_000) {
    const h = Math.floor(abs / 3_600_000);
    const m = Math.round((abs % 3_600_000) / 60_000);
    return `${ms < 0 ? "-" : ""}${h}h${m ? ` ${m}m` : ""}`;
  }
  const d = Math.floor(abs / 86_400_000);
  const h = Math.round((abs % 86_400_000) / 3_600_000);
  return `${ms < 0 ? "-" : ""}${d}d${h ? ` ${h}h` : ""}`;
}
