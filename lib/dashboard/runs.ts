// One collection run, for the "Refresh now" progress indicator.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import type { RunDto } from "@/lib/api/contract";
import { runDto } from "./mappers";

export async function getRun(db: PrismaClient, id: number): Promise<RunDto> {
  const run = await db.collectionRun.findUnique({ where: { id }, include: { environment: { select: { name: true } } } });
  if (!run) throw notFound(`run ${id}`);
  return runDto(run.environment.name, run);
}
