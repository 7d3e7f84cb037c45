"use client";
import { createContext, useContext, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { FALLBACK_POLL_MS } from "@/lib/dashboard/client";
import { useLiveConnection, type LiveState } from "./use-live-connection";

const LiveContext = createContext<LiveState>("connecting");

/** Keeps the tab's change stream open and tells the pages whether it is. */
export function LiveUpdates({ children }: { children: ReactNode }) {
  const state = useLiveConnection(useQueryClient());
  return (
    <LiveContext.Provider value={state}>
      {children}
      <LiveStatus state={state} />
    </LiveContext.Provider>
  );
}

/**
 * A query's refetchInterval: none while the stream brings changes, a slow
 * poll while it does not (so a page never goes stale for good).
 */
export function useFallbackPoll(): number | false {
  return useContext(LiveContext) === "live" ? false : FALLBACK_POLL_MS;
}

/**
 * Always in the page, so screen readers announce it when its text appears
 * (role=status is a polite live region). data-live-state lets tests wait
 * until the page is hydrated and receiving changes.
 */
function LiveStatus({ state }: { state: LiveState }) {
  const lost = state === "reconnecting";
  return (
    <div role="status" aria-live="polite" data-live-state={state} className={lost ? "fixed bottom-4 right-4 z-50 rounded border border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-900 shadow" : "sr-only"}>
      {lost ? "Live updates lost — reconnecting…" : ""}
    </div>
  );
}
