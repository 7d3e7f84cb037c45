// How many live objects one collector process may hold in watch caches.
//
// A watched environment's informers keep every object of the kinds it reads,
// whole (managed fields included: they say who changed a field), for as long
// as it is watched. Measured with `bench/latency.ts --collector-process`: the
// collector watching 100,000 objects was 1,660 MiB resident under a 2 GiB heap,
// and under `npm run collector`'s default 768 MiB heap it ran out of memory and
// died during its first run. A process that dies loses its runs and its watches
// with them; one that polls the environment instead loses only latency. So a
// worker watches an environment only while the objects of the environments it
// watches fit its budget, and polls the others (their scheduled runs go on as
// in poll mode), saying so once.
//
// The default budget follows the heap limit (the operator raises both with
// NODE_OPTIONS=--max-old-space-size=N), fitted to the two measurements: a
// watched 50,000-object environment ran under the default 768 MiB heap (V8
// reports ~816 MiB with the young generation; 747 MiB resident, peak 838), and
// a watched 100,000-object one with a 2 GiB heap (1,660 MiB resident): 20,000
// objects plus 39 per MiB of heap limit, ~52,000 and ~101,000 there.
//
// What an environment holds is counted as its objects: the live objects its
// last good run counted while it is not watched (an environment without one
// is not watched until it has one: its first run lists everything, and
// informers listing the same beside it are what exhausted the heap), and its
// informers' caches once watched (they hold every object of the kinds read
// in its scopes, tracked or not).
import v8 from "node:v8";

export const WATCH_BUDGET_BASE = 20_000;
export const WATCH_OBJECTS_PER_HEAP_MIB = 39;
/** A watched environment is dropped only once the watches it is part of exceed the budget by this much: no flapping at the edge. */
export const WATCH_BUDGET_SLACK = 0.1;

/** The default budget: from this process's V8 heap limit. */
export function defaultWatchBudget(heapLimitBytes = v8.getHeapStatistics().heap_size_limit): number {
  return WATCH_BUDGET_BASE + Math.floor((heapLimitBytes / (1024 * 1024)) * WATCH_OBJECTS_PER_HEAP_MIB);
}

export interface WatchCandidate {
  id: string;
  /** Objects its caches hold (watched) or will hold (its last good run's count). */
  objects: number;
}

/**
 * Which of the watches this worker holds it keeps, in the order given: each
 * while the kept ones fit the budget with some slack. Returns the kept ones'
 * objects, against which the environments it does not watch yet are tried
 * one at a time (`fits`), each counted only once its lock is taken and its
 * watch started — one another worker holds costs this worker nothing.
 */
export function keepWatches(watched: readonly WatchCandidate[], budget: number): { keep: string[]; stop: string[]; held: number } {
  const out = { keep: [] as string[], stop: [] as string[], held: 0 };
  for (const w of watched) {
    if (out.held + w.objects <= budget * (1 + WATCH_BUDGET_SLACK)) {
      out.held += w.objects;
      out.keep.push(w.id);
    } else out.stop.push(w.id);
  }
  return out;
}

/** Whether an environment of `objects` may start being watched beside `held`. */
export function fits(held: number, objects: number, budget: number): boolean {
  return held + objects <= budget;
}
