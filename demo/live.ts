// After the scripted past, the demo keeps living in real time: the demo
// controllers reconcile on their intervals, so a change made with kubectl is
// reverted, kept or reported just as a real Flux or Argo CD would.
import type { DemoWorld } from "./world";
import { ENV_NAMES } from "./script";
import { reconcile } from "./play";

export function startControllers(world: DemoWorld, log: (m: string) => void, intervalMs = 30_000): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      for (const env of ENV_NAMES) {
        if (stopped) return;
        try {
          await reconcile(world, env);
        } catch (e) {
          log(`demo controller in ${env}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    })();
  };
  const timer = setInterval(tick, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
