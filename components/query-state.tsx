"use client";
// What a page shows while its data loads, when a refresh fails, and when a
// first load fails: always what happened and what to do.
import { useEffect, useState, type ReactNode } from "react";

export function LoadingBlock({ label = "Loading…" }: { label?: string }) {
  return (
    // The pulse is on a mark beside the words: a pulsing text fades below readable contrast half the time.
    <div role="status" aria-live="polite" className="flex items-center gap-2 rounded-lg border border-slate-200 bg-white p-6 text-sm text-slate-600">
      <span aria-hidden="true" className="inline-block h-2 w-2 animate-pulse rounded-full bg-slate-500" />
      {label}
    </div>
  );
}

export function ErrorBlock({ error, onRetry, children }: { error: unknown; onRetry?: () => void; children?: ReactNode }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900">
      <p className="font-medium">Could not load this page&apos;s data.</p>
      <p className="mt-1">{message}</p>
      {children}
      {onRetry && (
        <button type="button" onClick={onRetry} className="mt-3 rounded border border-red-300 bg-white px-3 py-1 text-red-900 hover:bg-red-100">
          Try again
        </button>
      )}
    </div>
  );
}

/** A failed poll with data still on screen: say the data may be old, keep showing it. */
export function StaleDataNotice({ error, updatedAt }: { error: unknown; updatedAt: number }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p role="status" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      Refreshing failed ({message}). Showing data from {new Date(updatedAt).toLocaleTimeString()}; retrying in a few seconds.
    </p>
  );
}

/**
 * Why a query that has never loaded failed, kept on screen while it tries again. React Query
 * puts a query without data back to "pending" (and clears its error) whenever it refetches, and
 * the live feed refetches as soon as a fetch ends when changes came meanwhile — often before the
 * page ever rendered the error. So the page would say "Loading…" forever while its API is down.
 * `errorUpdateCount` survives a refetch: once a load has failed, the page keeps saying so, with
 * the last reason it saw (an attempt's `failureReason` is seen during the retries' back-off).
 * `key` is the query's key: another question (new filters) starts without the old one's reason.
 */
export function useFirstLoadError(q: { error: unknown; failureReason: unknown; errorUpdateCount: number; data: unknown }, key: string): unknown {
  const [last, setLast] = useState<{ key: string; error: unknown } | null>(null);
  const seen = q.error ?? q.failureReason;
  useEffect(() => {
    if (seen) setLast({ key, error: seen });
  }, [seen, key]);
  if (q.data !== undefined) return null;
  if (q.error) return q.error;
  if (q.errorUpdateCount === 0) return null;
  return (last?.key === key ? last.error : null) ?? new Error("The request failed; trying again.");
}
