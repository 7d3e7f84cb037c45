import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getConfig } from "@/lib/config";
import { getCurrentUser } from "@/lib/auth/server";
import { safeNextPath } from "@/lib/auth/request";
import { SignInForm } from "@/components/auth/signin-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

const FORBIDDEN = "Your role does not allow that page; sign in with another account.";

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? null;
  const next = safeNextPath(one(params.next));
  const error = one(params.error);
  const user = await getCurrentUser().catch(() => null);
  if (user && !error) redirect(next);
  const auth = getConfig().config.auth;
  return <SignInForm local={auth.local} oidc={Boolean(auth.oidc)} next={next} error={error === "forbidden" ? FORBIDDEN : error ? error.slice(0, 300) : null} />;
}
