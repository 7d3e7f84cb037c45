// Alerts with their runbooks, open first.
import { z } from "zod";
import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { listAlerts } from "@/lib/alerts";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  {
    query: z.object({
      open: z.enum(["true", "false"]).optional(),
      environment: z.string().max(100).optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  },
  async ({ query }) => ({
    alerts: await listAlerts(
      getPrisma(),
      { open: query.open === undefined ? undefined : query.open === "true", environment: query.environment, limit: query.limit },
      getConfig().config.alerts.runbooks,
    ),
  }),
);
