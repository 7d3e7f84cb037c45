import path from "node:path";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig } from "@/lib/config";
import { env, dataDir } from "@/lib/env";
import { instanceKey } from "@/lib/env/instance-key";
import { logger } from "@/lib/log";
import type { CollectorContext } from "./collect-environment";

/** The collector's dependencies as a running install provides them. */
export function collectorContext(db: PrismaClient, config: DriftwatchConfig, overrides: Partial<CollectorContext> = {}): CollectorContext {
  return {
    db,
    config,
    mirrorsDir: path.join(dataDir(), "mirrors"),
    secretKey: instanceKey(),
    kustomizeBin: env().KUSTOMIZE_BIN,
    now: () => new Date(),
    log: logger.child({ component: "collector" }),
    ...overrides,
  };
}
