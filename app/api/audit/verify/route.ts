// Recomputes the audit hash chain, compares it with the newest checkpoint in
// the data folder, and names the first broken link.
import path from "node:path";
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { dataDir } from "@/lib/env";
import { CHECKPOINT_FILE, verifyAuditLog } from "@/lib/audit";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.verifyAudit, async () => verifyAuditLog(getPrisma(), { file: path.join(dataDir(), CHECKPOINT_FILE) }));
