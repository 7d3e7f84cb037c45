// What follows every run: detected pauses and alerts are re-evaluated from the
// state the run stored. Kept apart so the run itself stays about collection.
import type { CollectorContext } from "./collect-environment";

export async function afterRunHooks(_ctx: CollectorContext, _environmentId: string): Promise<void> {
  // Filled in when lib/pauses and lib/alerts land.
}
