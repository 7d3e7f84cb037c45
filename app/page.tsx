import { requireUser } from "@/lib/auth/server";
import { cachedEnvironments } from "@/lib/dashboard/cached";
import { ConfigureHint } from "@/components/configure-hint";
import { EnvironmentsClient } from "./environments-client";

export const dynamic = "force-dynamic";

export default async function EnvironmentsPage() {
  await requireUser();
  const data = await cachedEnvironments();
  if (data.environments.length === 0 && data.config.declared === 0) {
    return <ConfigureHint configPath={data.config.path} configExists={data.config.exists} />;
  }
  return <EnvironmentsClient initial={data} />;
}
