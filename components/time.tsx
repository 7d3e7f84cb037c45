"use client";
// Times in the viewer's time zone, with UTC on hover. The server renders UTC
// (it cannot know the viewer's zone); the browser switches to local time right
// after hydration, so both renders agree and nothing flickers into a mismatch.
import { useEffect, useState } from "react";
import { formatAge } from "@/lib/dashboard/format";

export function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

/** Milliseconds since epoch, ticking every `everyMs`; before mount, the server's `serverNow`. */
export function useNow(serverNow: string | null | undefined, everyMs = 10_000): number {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now ?? (serverNow ? Date.parse(serverNow) : 0);
}

const utc = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") + " UTC";

export function formatLocal(iso: string, style: "datetime" | "time" | "date" = "datetime"): string {
  const d = new Date(iso);
  if (style === "time") return d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  if (style === "date") return d.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "short", day: "numeric" });
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function Time({ iso, style = "datetime", className }: { iso: string | null | undefined; style?: "datetime" | "time" | "date"; className?: string }) {
  const mounted = useMounted();
  if (!iso) return <span className={className}>—</span>;
  const text = mounted ? formatLocal(iso, style) : style === "time" ? iso.slice(11, 19) : style === "date" ? iso.slice(0, 10) : utc(iso).slice(0, 16);
  return (
    <time dateTime={iso} title={utc(iso)} className={className}>
      {text}
    </time>
  );
}

/** "3m ago" (or "in 2h" for the future), local and UTC time on hover. */
export function Ago({ iso, now, className }: { iso: string | null | undefined; now: number; className?: string }) {
  const mounted = useMounted();
  if (!iso) return <span className={className}>never</span>;
  const delta = now - Date.parse(iso);
  // The page clock ticks slower than data arrives: a moment a few seconds "in the future" is just now.
  const text = delta >= 0 ? `${formatAge(delta)} ago` : delta > -60_000 ? "just now" : `in ${formatAge(-delta)}`;
  return (
    <time dateTime={iso} title={`${mounted ? formatLocal(iso) + " · " : ""}${utc(iso)}`} className={className}>
      {text}
    </time>
  );
}
