import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { lookupCommit } from "@/lib/dashboard";
import { shaParam } from "@/lib/api/contract/params";
import { orNotFound } from "@/lib/dashboard/pages";
import { CommitClient } from "./commit-client";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ sha: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Commit ${(await params).sha.slice(0, 7)}` };
}

export default async function CommitPage({ params }: Props) {
  await requireUser();
  const p = shaParam.safeParse(await params);
  if (!p.success) notFound();
  const data = await orNotFound(lookupCommit(getPrisma(), p.data.sha));
  return <CommitClient sha={p.data.sha} initial={data} now={new Date().toISOString()} />;
}
