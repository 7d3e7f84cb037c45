import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { getObjectDetail } from "@/lib/dashboard";
import { keyFromSegments, objectLabel } from "@/lib/dashboard/object-key";
import { envParams } from "@/lib/api/contract/params";
import { orNotFound } from "@/lib/dashboard/pages";
import { ObjectClient } from "./object-client";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string; key: string[] }> };

async function resolve(params: Props["params"]): Promise<{ env: string; key: string }> {
  const p = await params;
  const env = envParams.safeParse({ env: p.env });
  const key = keyFromSegments(p.key.map((s) => decodeURIComponent(s)));
  if (!env.success || !key) notFound();
  return { env: env.data.env, key };
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  const key = keyFromSegments(p.key.map((s) => decodeURIComponent(s)));
  return { title: key ? `${objectLabel(key)} · ${p.env}` : p.env };
}

export default async function ObjectPage({ params }: Props) {
  await requireUser();
  const { env, key } = await resolve(params);
  const detail = await orNotFound(getObjectDetail(getPrisma(), env, key));
  return <ObjectClient initial={detail} />;
}
