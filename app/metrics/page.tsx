import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { getMetrics } from "@/lib/dashboard";
import { metricsQuerySchema } from "@/lib/api/contract/metrics";
import { orNotFound } from "@/lib/dashboard/pages";
import { MetricsClient } from "./metrics-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Metrics" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function MetricsPage({ searchParams }: Props) {
  await requireUser();
  const sp = await searchParams;
  const parsed = metricsQuerySchema.safeParse({ days: typeof sp.days === "string" ? sp.days : undefined, application: typeof sp.application === "string" ? sp.application : undefined });
  const days = parsed.success ? parsed.data.days : 30;
  const application = parsed.success ? parsed.data.application : undefined;
  return <MetricsClient initial={await orNotFound(getMetrics(getPrisma(), days, new Date(), application))} />;
}
