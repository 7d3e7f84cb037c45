import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { getLineage } from "@/lib/dashboard";
import { LineageClient } from "./lineage-client";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Lineage" };

export default async function LineagePage() {
  await requireUser();
  return <LineageClient initial={await getLineage(getPrisma())} />;
}
