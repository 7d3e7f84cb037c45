import type { Metadata } from "next";
import { requireUser } from "@/lib/auth/server";
import { AuditLog, type AuditFilters } from "@/components/audit/audit-log";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireUser("viewer");
  const params = await searchParams;
  const one = (k: string) => {
    const v = params[k];
    return (Array.isArray(v) ? v[0] : v)?.slice(0, 200) || undefined;
  };
  const filters: AuditFilters = { actor: one("actor"), action: one("action"), environment: one("environment"), q: one("q") };
  return <AuditLog initialFilters={filters} />;
}
