// The collector process's V8 heap limit. Its peak memory follows the heap
// limit more than its data: under Node's default limit (a quarter of the
// machine's memory or more) the garbage of a 100,000-object run piles up to
// gigabytes before V8 collects it, while what a run keeps alive is a few
// hundred MiB. `npm run collector` sets this limit unless the operator set one
// (`NODE_OPTIONS=--max-old-space-size=N`, or the flag itself); the collection
// bench measures the collector with the same default.
import { spawn } from "node:child_process";

export const COLLECTOR_HEAP_MIB = 768;

const FLAG = "--max-old-space-size";

/** Whether this process was started with a heap limit of its own. */
export function heapLimitSet(): boolean {
  // Node takes the flag with dashes or underscores.
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].map((a) => a.replace(/_/g, "-")).some((a) => a.startsWith(`${FLAG}=`) || a === FLAG);
}

/**
 * Runs `main` in this process when a heap limit is set; otherwise starts this
 * same script again with the default limit (signals passed on, its exit code
 * this process's) and returns without running `main`.
 */
export function withCollectorHeap(main: () => void): void {
  if (heapLimitSet()) {
    main();
    return;
  }
  const child = spawn(process.execPath, [...process.execArgv, `${FLAG}=${COLLECTOR_HEAP_MIB}`, ...process.argv.slice(1)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
