import { describe, expect, it } from "vitest";
import type { RolloutStatus } from "@/lib/domain/types";
import type { ApiResource } from "@/lib/kube/discovery";
import { sameInventories, settle, takeChanges, untouched } from "./live-delta";
import type { LiveEntry } from "./live-intake";

const configmaps: ApiResource = { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true, verbs: ["list", "watch"] };

function entry(name: string, rv: string, extra: Partial<LiveEntry> = {}): LiveEntry {
  return { key: `/ConfigMap/shop/${name}`, apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name, resourceVersion: rv, ...extra };
}

describe("untouched", () => {
  it("keeps identity, resource version and rollout, and drops what a run writes or compares", () => {
    const rollout: RolloutStatus = { key: "apps/Deployment/shop/api", kind: "Deployment", namespace: "shop", name: "api", generation: 2, observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, images: ["shop/api:1.4.0"], rolledOut: true, message: null };
    const e = entry("a", "7", { hash: "h", text: "{}", drift: { type: "InSync", ignored: {} }, rollout });
    expect(untouched(e)).toEqual({ key: "/ConfigMap/shop/a", apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "a", resourceVersion: "7", rollout });
  });

  it("returns an entry that is already untouched as it is", () => {
    const e = entry("a", "7");
    expect(untouched(e)).toBe(e);
  });
});

describe("settle", () => {
  it("settles only the keys named, or every entry", () => {
    const live = new Map([entry("a", "1", { hash: "x", text: "{}" }), entry("b", "2", { hash: "y" })].map((e) => [e.key, e]));
    settle(live, ["/ConfigMap/shop/a"]);
    expect(live.get("/ConfigMap/shop/a")?.hash).toBeUndefined();
    expect(live.get("/ConfigMap/shop/b")?.hash).toBe("y");
    settle(live, null);
    expect([...live.values()].every((e) => e.hash === undefined)).toBe(true);
  });
});

describe("takeChanges", () => {
  const kept = () => new Map([entry("a", "1"), entry("b", "2"), entry("c", "3")].map((e) => [e.key, e]));

  it("drops changed keys, takes in what the cache holds now, and leaves every other entry as it was", () => {
    const live = kept();
    const b = live.get("/ConfigMap/shop/b");
    takeChanges(
      live,
      [
        { key: "/ConfigMap/shop/a", resource: configmaps, object: { metadata: { name: "a" } } },
        { key: "/ConfigMap/shop/c", resource: configmaps, object: null },
        { key: "/ConfigMap/shop/d", resource: configmaps, object: { metadata: { name: "d" } } },
      ],
      (c, into) => into.set(c.key, entry(c.key.split("/").pop()!, "9", { hash: "new" })),
    );
    expect([...live.keys()].sort()).toEqual(["/ConfigMap/shop/a", "/ConfigMap/shop/b", "/ConfigMap/shop/d"]);
    expect(live.get("/ConfigMap/shop/a")).toMatchObject({ resourceVersion: "9", hash: "new" });
    expect(live.get("/ConfigMap/shop/b")).toBe(b);
  });

  it("a change the run does not keep (not ours) is dropped, not kept from before", () => {
    const live = kept();
    takeChanges(live, [{ key: "/ConfigMap/shop/a", resource: configmaps, object: { metadata: { name: "a" } } }], () => {});
    expect(live.has("/ConfigMap/shop/a")).toBe(false);
  });

  it("puts the last good run's entries back for a run that fails before it writes", () => {
    const live = kept();
    const before = new Map(live);
    const undo = takeChanges(
      live,
      [
        { key: "/ConfigMap/shop/a", resource: configmaps, object: { metadata: { name: "a" } } },
        { key: "/ConfigMap/shop/c", resource: configmaps, object: null },
        { key: "/ConfigMap/shop/d", resource: configmaps, object: { metadata: { name: "d" } } },
      ],
      (c, into) => into.set(c.key, entry(c.key.split("/").pop()!, "9", { hash: "new" })),
    );
    undo();
    expect(live).toEqual(before);
    for (const [k, e] of before) expect(live.get(k)).toBe(e);
  });
});

describe("sameInventories", () => {
  it("compares each controller's inventory by content, not by array", () => {
    expect(sameInventories([["a", "b"], null], [["a", "b"], null])).toBe(true);
    expect(sameInventories([["a", "b"]], [["a", "c"]])).toBe(false);
    expect(sameInventories([["a"]], [["a", "b"]])).toBe(false);
    expect(sameInventories([null], [[]])).toBe(false);
    expect(sameInventories([["a"]], [["a"], null])).toBe(false);
  });
});
