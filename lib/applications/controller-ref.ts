// Pauses name the controller object they act on as "Kind/namespace/name";
// applications store it as a ControllerRef. This finds the application a
// pause targets, so the pause is recorded on it.
import { Prisma } from "@/lib/db/generated/client";
import type { ControllerRef } from "./spec";

export function controllerRefKey(ref: Pick<ControllerRef, "kind" | "namespace" | "name">): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The environment's (not removed) application whose controller object is `ref`, if any. */
export async function applicationIdForControllerRef(tx: Prisma.TransactionClient, environmentId: string, ref: string | null): Promise<string | null> {
  if (!ref) return null;
  const apps = await tx.application.findMany({ where: { environmentId, removedAt: null, NOT: { controllerRef: { equals: Prisma.AnyNull } } }, select: { id: true, controllerRef: true } });
  return apps.find((a) => a.controllerRef && controllerRefKey(a.controllerRef as ControllerRef) === ref)?.id ?? null;
}
