"use client";
// What a page shows while its data loads, when a refresh fails, and when a
// first load fails: always what happened and what to do.
import type { ReactNode } from "react";

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
