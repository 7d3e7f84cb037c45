// A CPU profile of chosen stretches of a process (the inspector's sampling profiler).
import fsp from "node:fs/promises";

/**
 * A CPU profile of the stretches between resume() and pause() (the
 * collection bench: the steady-state runs, not the churn between them); each
 * stretch saved as a file of its own.
 */
export async function startProfiler(): Promise<{ resume(): Promise<void>; pause(): Promise<void>; save(file: string): Promise<void> }> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  const profiles: unknown[] = [];
  return {
    resume: async () => void (await session.post("Profiler.start")),
    pause: async () => void profiles.push((await session.post("Profiler.stop")).profile),
    async save(file) {
      for (const [i, p] of profiles.entries()) await fsp.writeFile(file.replace(/\.cpuprofile$/, `-${i + 1}.cpuprofile`), JSON.stringify(p));
      session.disconnect();
    },
  };
}
