// Alerts with their runbooks, open first.
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { listAlerts } from "@/lib/alerts";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  operations.listAlerts,
  async ({ query }) => ({
    alerts: await listAlerts(
      getPrisma(),
      { open: query.open === undefined ? undefined : query.open === "true", environment: query.environment, limit: query.limit },
      getConfig().config.alerts.runbooks,
    ),
  }),
);
