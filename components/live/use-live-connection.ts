"use client";
// One change stream per tab (GET /api/live): each `change` event refetches
// the open queries that read the tables it names. While the stream is down
// the pages fall back to a slow poll (useFallbackPoll) and the stream is
// retried with backoff; when it is back, everything open is refetched once,
// since changes may have been missed meanwhile.
import { useEffect, useState } from "react";
import type { QueryClient } from "@tanstack/react-query";
import { PROGRESS_ONLY_DELAY_MS, isProgressOnly, queryPrefixesFor } from "@/lib/live/invalidation";
import { parseSse, reconnectDelayMs } from "@/lib/live/sse";

/**
 * "connecting": the first attempt, not yet answered. "live": receiving.
 * "reconnecting": lost or refused; retrying. "signed-out": the server said
 * 401 (the page says so itself); retried slowly, without alarm.
 */
export type LiveState = "connecting" | "live" | "reconnecting" | "signed-out";

/** A stream quiet for this many heartbeats is taken for dead (a half-open connection says nothing). */
const MISSED_HEARTBEATS = 2.5;
const SIGNED_OUT_RETRY_MS = 10_000;

export function useLiveConnection(queryClient: QueryClient, url = "/api/live"): LiveState {
  const [state, setState] = useState<LiveState>("connecting");

  useEffect(() => {
    let stopped = false;
    let attempt = 0;
    let abort: AbortController | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    let progress: ReturnType<typeof setTimeout> | undefined;

    const schedule = (ms: number) => {
      clearTimeout(retry);
      retry = setTimeout(connect, ms);
    };
    const lose = () => {
      if (stopped) return;
      abort?.abort();
      clearTimeout(watchdog);
      setState("reconnecting");
      schedule(reconnectDelayMs(attempt++));
    };
    // At most one refetch per key prefix in flight, and one more after it when changes came meanwhile.
    // Cancelling the running fetch at every change instead (react-query's default) starves a busy page:
    // when changes arrive faster than the server answers, no answer is ever kept and the page freezes.
    const running = new Set<string>();
    const again = new Set<string>();
    const refetchPrefix = (p: string) => {
      if (running.has(p)) {
        again.add(p);
        return;
      }
      running.add(p);
      // A fetch already running (a first load, the fallback poll) may have started before the change.
      const startedBefore = queryClient.isFetching({ queryKey: [p] }) > 0;
      void queryClient.invalidateQueries({ queryKey: [p], type: "active" }, { cancelRefetch: false }).finally(() => {
        running.delete(p);
        if ((again.delete(p) || startedBefore) && !stopped) refetchPrefix(p);
      });
    };
    const refetch = (prefixes: readonly string[] | "all") => {
      if (prefixes === "all") void queryClient.invalidateQueries({ type: "active" });
      else for (const p of prefixes) refetchPrefix(p);
    };

    async function connect(): Promise<void> {
      if (stopped) return;
      const controller = new AbortController();
      abort = controller;
      let heartbeatMs = 15_000;
      const alive = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(lose, heartbeatMs * MISSED_HEARTBEATS);
      };
      try {
        const res = await fetch(url, { headers: { accept: "text/event-stream" }, cache: "no-store", signal: controller.signal });
        if (res.status === 401) {
          setState("signed-out");
          schedule(SIGNED_OUT_RETRY_MS);
          return;
        }
        if (!res.ok || !res.body) return lose();
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const parsed = parseSse(buffer + decoder.decode(value, { stream: true }));
          buffer = parsed.rest;
          for (const e of parsed.events) {
            if (e.event === "ready") {
              heartbeatMs = (JSON.parse(e.data) as { heartbeatMs: number }).heartbeatMs;
              attempt = 0;
              setState("live");
              // Whatever committed before this stream began is not announced on it.
              refetch("all");
            } else if (e.event === "change") {
              const tables = (JSON.parse(e.data) as { tables: string[] }).tables;
              if (!isProgressOnly(tables)) refetch(queryPrefixesFor(tables));
              else
                progress ??= setTimeout(() => {
                  progress = undefined;
                  refetch(queryPrefixesFor(tables));
                }, PROGRESS_ONLY_DELAY_MS);
            }
            // "heartbeat" only proves the line is alive; "lost" and "signed-out" precede the end.
          }
          alive();
        }
      } catch {
        // a network error, or our own abort
      }
      if (!controller.signal.aborted) lose();
    }

    const online = () => {
      // The browser says the network is back: try now rather than at the end of a long backoff.
      if (abort?.signal.aborted !== false) {
        attempt = 0;
        schedule(0);
      }
    };
    window.addEventListener("online", online);
    void connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(watchdog);
      clearTimeout(progress);
      abort?.abort();
      window.removeEventListener("online", online);
    };
  }, [queryClient, url]);

  return state;
}
