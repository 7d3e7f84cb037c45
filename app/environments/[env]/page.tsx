import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/server";
import { driftQuerySchema } from "@/lib/api/contract/drift";
import { cachedDrift, cachedEnvironmentDetail } from "@/lib/dashboard/cached";
import { envParams } from "@/lib/api/contract/params";
import { orNotFound } from "@/lib/dashboard/pages";
import { EnvironmentClient } from "./environment-client";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).env };
}

export default async function EnvironmentPage({ params, searchParams }: Props) {
  await requireUser();
  const p = envParams.safeParse(await params);
  if (!p.success) notFound();
  const { env } = p.data;
  const sp = await searchParams;
  const filters = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) if (typeof v === "string" && k !== "cursor") filters.set(k, v);
  const parsed = driftQuerySchema.safeParse(Object.fromEntries(filters));
  const [detail, drift] = await Promise.all([
    orNotFound(cachedEnvironmentDetail(env)),
    parsed.success ? orNotFound(cachedDrift(env, parsed.data)) : Promise.resolve(null),
  ]);
  return <EnvironmentClient initial={detail} initialDrift={drift} initialFilters={filters.toString()} />;
}
