// Re-evaluate every alert now (instead of waiting for the next collection),
// e.g. right after taking ownership of a pause.
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getConfig } from "@/lib/config";
import { alertOptionsFrom, refreshAlerts } from "@/lib/alerts";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(operations.refreshAlerts, async ({ db }) => {
  const result = await refreshAlerts(db, null, new Date(), alertOptionsFrom(getConfig().config));
  return { opened: result.opened.length, updated: result.updated.length, resolved: result.resolved.length };
});
