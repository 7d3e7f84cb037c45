import { env } from "@/lib/env";
import { loadConfig } from "./load";
import type { DriftwatchConfig } from "./schema";

let cached: { config: DriftwatchConfig; path: string; exists: boolean } | undefined;

/** The configuration in force, read once per process from DRIFTWATCH_CONFIG. */
export function getConfig(): { config: DriftwatchConfig; path: string; exists: boolean } {
  cached ??= loadConfig(env().DRIFTWATCH_CONFIG);
  return cached;
}

export function resetConfigCache(): void {
  cached = undefined;
}
