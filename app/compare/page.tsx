import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { compareEnvironments, environmentNames } from "@/lib/dashboard";
import { compareQuerySchema } from "@/lib/api/contract/compare";
import { ApiError } from "@/lib/api/errors";
import { pickSearchParams, type PageSearchParams } from "@/lib/dashboard/pages";
import { CompareClient } from "./compare-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare environments" };

type Props = { searchParams: Promise<PageSearchParams> };

export default async function ComparePage({ searchParams }: Props) {
  await requireUser();
  const sp = await searchParams;
  const params = pickSearchParams(sp, ["from", "to", "mode", "kind", "application"]);
  const db = getPrisma();
  const names = await environmentNames(db);
  let initial = null;
  let problem: string | null = null;
  if (params.get("from") && params.get("to")) {
    const parsed = compareQuerySchema.safeParse(Object.fromEntries(params));
    if (!parsed.success) problem = parsed.error.issues.map((i) => i.message).join("; ");
    else {
      try {
        initial = await compareEnvironments(db, parsed.data);
      } catch (e) {
        if (e instanceof ApiError && e.status < 500) problem = e.message;
        else throw e;
      }
    }
  }
  return <CompareClient environments={names} initial={initial} initialParams={params.toString()} problem={problem} />;
}
