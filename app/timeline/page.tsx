import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { getTimeline } from "@/lib/dashboard";
import { timelineQuerySchema } from "@/lib/api/contract/timeline";
import { orNotFound, pickSearchParams, type PageSearchParams } from "@/lib/dashboard/pages";
import { TimelineClient } from "./timeline-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Timeline" };

type Props = { searchParams: Promise<PageSearchParams> };

export default async function TimelinePage({ searchParams }: Props) {
  await requireUser();
  const sp = await searchParams;
  const params = pickSearchParams(sp, ["environment", "application", "type", "from", "to"]);
  const parsed = timelineQuerySchema.safeParse(Object.fromEntries(params));
  const initial = parsed.success ? await orNotFound(getTimeline(getPrisma(), parsed.data)) : null;
  return <TimelineClient initial={initial} initialParams={params.toString()} problem={parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")} />;
}
