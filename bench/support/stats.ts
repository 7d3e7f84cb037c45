// Numbers for benchmark reports: percentiles, peak memory while something
// runs, and the machine the figures came from.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const MiB = 1024 * 1024;

/** This process's peak resident memory as the kernel counts it (VmHWM, bytes); null where /proc is absent. */
export function highWaterRss(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Peak resident memory of this process while `fn` runs (bytes): the kernel's
 * high-water mark, reset to the current size first (Linux: clear_refs 5), so
 * no allocation burst between samples is missed. Elsewhere, sampled.
 */
export async function withHighWaterRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRss: number }> {
  let reset = false;
  try {
    fs.writeFileSync("/proc/self/clear_refs", "5");
    reset = highWaterRss() !== null;
  } catch {
    reset = false;
  }
  if (!reset) return withPeakRss(fn);
  const value = await fn();
  return { value, peakRss: highWaterRss() ?? process.memoryUsage.rss() };
}

/** Samples this process's resident memory while `fn` runs; returns the peak seen (bytes). */
export async function withPeakRss<T>(fn: () => Promise<T>, everyMs = 20): Promise<{ value: T; peakRss: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  }, everyMs);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakRss: peak };
  } finally {
    clearInterval(timer);
  }
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t };
}

export function machine(): { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string; loadAverage1m: number } {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage1m: round(os.loadavg()[0] ?? 0, 2),
  };
}

export function loadAverage(): number {
  return round(os.loadavg()[0] ?? 0, 2);
}

/** True when this module is the script node was started with (each bench runs alone or from bench/run.ts). */
export function isMain(metaUrl: string): boolean {
  const arg = process.argv[1];
  return arg !== undefined && metaUrl === pathToFileURL(path.resolve(arg)).href;
}

/** Runs a benchmark's main() when its file is the script node was started with; the exit code says whether it threw. */
export function runIfMain(metaUrl: string, main: () => Promise<unknown>): void {
  if (!isMain(metaUrl)) return;
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

/** The value after `--name`, if given. */
export function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
