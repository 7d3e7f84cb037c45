import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { compareEnvironments } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.compareEnvironments, async ({ query }) => compareEnvironments(getPrisma(), query));
