import { requireUser } from "@/lib/auth/server";
import { getPrisma } from "@/lib/db";
import { listEnvironments } from "@/lib/dashboard";
import { configSummary } from "@/lib/dashboard/params";
import { ConfigureHint } from "@/components/configure-hint";
import { EnvironmentsClient } from "./environments-client";

export const dynamic = "force-dynamic";

export default async function EnvironmentsPage() {
  await requireUser();
  const data = await listEnvironments(getPrisma(), configSummary());
  if (data.environments.length === 0 && data.config.declared === 0) {
    return <ConfigureHint configPath={data.config.path} configExists={data.config.exists} />;
  }
  return <EnvironmentsClient initial={data} />;
}
