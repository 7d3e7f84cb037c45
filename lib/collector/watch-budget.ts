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
// NODE_OPTIONS=--max-old-space-size=N): 64 objects per MiB, about 52,000 under
// the default limit (768 MiB, which V8 reports as ~816 MiB with the young
// generation), where a watched 50,000-object environment was measured to run.
import v8 from "node:v8";

export const WATCH_OBJECTS_PER_HEAP_MIB = 64;

/** The default budget: from this process's V8 heap limit. */
export function defaultWatchBudget(heapLimitBytes = v8.getHeapStatistics().heap_size_limit): number {
  return Math.floor((heapLimitBytes / (1024 * 1024)) * WATCH_OBJECTS_PER_HEAP_MIB);
}

export interface WatchCandidate {
  id: string;
  /** Live objects the environment's last good run stored: what its caches will hold. */
  objects: number;
}

export interface WatchPlan {
  /** Watched now and still within the budget. */
  keep: string[];
  /** Watched now, but the watched environments have outgrown the budget: stop, poll instead. */
  stop: string[];
  /** Not watched yet, and within the budget with what is kept. */
  start: string[];
  /** Wanted, not watched, and over the budget. */
  overBudget: string[];
}

/**
 * Which of the environments this worker could watch it does watch. Those it
 * watches already come first (in the order given), so a watch is never
 * dropped for one not yet started; an environment larger than the budget on
 * its own is never watched.
 */
export function planWatches(watched: readonly WatchCandidate[], wanted: readonly WatchCandidate[], budget: number): WatchPlan {
  const plan: WatchPlan = { keep: [], stop: [], start: [], overBudget: [] };
  let held = 0;
  for (const w of watched) {
    if (held + w.objects <= budget) {
      held += w.objects;
      plan.keep.push(w.id);
    } else plan.stop.push(w.id);
  }
  const watchedIds = new Set(watched.map((w) => w.id));
  for (const w of wanted) {
    if (watchedIds.has(w.id)) continue;
    if (held + w.objects <= budget) {
      held += w.objects;
      plan.start.push(w.id);
    } else plan.overBudget.push(w.id);
  }
  return plan;
}
