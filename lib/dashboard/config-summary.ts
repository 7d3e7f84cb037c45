// Where the configuration lives, for the environments page's empty state.
import { getConfig } from "@/lib/config";

/** A broken file is reported by the server at start, not here. */
export function configSummary(): { path: string; exists: boolean; declared: number } {
  try {
    const c = getConfig();
    return { path: c.path, exists: c.exists, declared: c.config.environments.length };
  } catch {
    return { path: "driftwatch.yaml", exists: true, declared: 0 };
  }
}
