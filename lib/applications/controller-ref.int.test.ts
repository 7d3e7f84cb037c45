import { beforeEach, describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { applicationIdForControllerRef } from "./controller-ref";

const db = getPrisma();

describe("applicationIdForControllerRef", () => {
  let envId: string;
  let webId: string;
  beforeEach(async () => {
    await resetDatabase(db);
    envId = (await db.environment.create({ data: { name: "production", position: 0, branch: "main", path: ".", spec: {} } })).id;
    const app = (name: string, controllerRef: object | undefined, removedAt: Date | null = null) =>
      db.application.create({ data: { environmentId: envId, name, kind: controllerRef ? "flux-kustomization" : "declared", promotionKey: name, controllerRef, spec: {}, firstSeenAt: new Date(), removedAt } });
    webId = (await app("web", { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "web" })).id;
    await app("infra", undefined);
    await app("old", { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "old" }, new Date());
  });

  it.each([
    ["the application whose controller object it is", "Kustomization/flux-system/web", "web"],
    ["nothing for a whole-environment pause", null, null],
    ["nothing for an unknown object", "Kustomization/flux-system/other", null],
    ["nothing for a removed application", "Kustomization/flux-system/old", null],
  ])("finds %s", async (_what, ref, expected) => {
    const id = await applicationIdForControllerRef(db, envId, ref);
    expect(id).toBe(expected === "web" ? webId : null);
  });
});
