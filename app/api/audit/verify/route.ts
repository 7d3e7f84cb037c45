// Recomputes the audit hash chain and names the first broken link.
import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { verifyAuditChain } from "@/lib/audit";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({}, async () => verifyAuditChain(getPrisma()));
