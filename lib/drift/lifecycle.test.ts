import { describe, expect, it } from "vitest";
import { compareObject } from "./compare";
import { createCompareContext } from "./context";
import { coveredByRules, driftTimeWithin, planDriftLifecycle, type Observation, type OpenDriftItem } from "./lifecycle";
import { desiredDeployment, liveDeployment } from "./test-fixtures";
import type { Change, ObjectDrift } from "./types";

const KEY = "apps/Deployment/shop/api";
const NOW = "2024-05-02T12:00:00.000Z";
const ctx = createCompareContext({ controllerManagers: ["kustomize-controller"] });

const replicasDrift = compareObject(desiredDeployment({ replicas: 3 }), liveDeployment({ replicas: 5 }), ctx);
const replicasChanges = (replicasDrift as Extract<ObjectDrift, { type: "Modified" }>).changes;
const inSync: ObjectDrift = { type: "InSync", ignored: {} };

function item(over: Partial<OpenDriftItem> = {}): OpenDriftItem {
  return { id: "d1", key: KEY, type: "Modified", changes: replicasChanges, openedAt: "2024-05-02T11:00:00.000Z", ...over };
}
const both = (drift: ObjectDrift): Observation => ({ drift, inDesired: true, inLive: true });

describe("drift lifecycle", () => {
  it("opens an item when a difference first appears", () => {
    const plan = planDriftLifecycle({ now: NOW, open: [], results: new Map([[KEY, both(replicasDrift)]]), previousResolutions: new Map([[KEY, 2]]) });
    expect(plan.update).toEqual([]);
    expect(plan.resolve).toEqual([]);
    expect(plan.open).toEqual([
      {
        key: KEY,
        type: "Modified",
        changes: replicasChanges,
        ignored: {},
        attribution: replicasChanges[0]?.attribution,
        openedAt: NOW,
        lastSeenAt: NOW,
        reopenCount: 2,
      },
    ]);
  });

  it("updates lastSeenAt while present, flagging whether the changes moved", () => {
    const same = planDriftLifecycle({ now: NOW, open: [item()], results: new Map([[KEY, both(replicasDrift)]]) });
    expect(same.update).toMatchObject([{ id: "d1", lastSeenAt: NOW, contentChanged: false }]);
    const moved = compareObject(desiredDeployment({ replicas: 3 }), liveDeployment({ replicas: 7 }), ctx);
    const changed = planDriftLifecycle({ now: NOW, open: [item()], results: new Map([[KEY, both(moved)]]) });
    expect(changed.update).toMatchObject([{ id: "d1", contentChanged: true, changes: [{ live: 7 }] }]);
    expect(changed.open).toEqual([]);
  });

  const resolutions: { name: string; item: OpenDriftItem; obs: Observation; extra?: Partial<Parameters<typeof planDriftLifecycle>[0]>; reason: string; sha?: string | null }[] = [
    { name: "live matches Git again → reverted", item: item(), obs: both(inSync), reason: "reverted", sha: null },
    {
      name: "Git changed to match live → adopted, naming the commit",
      item: item(),
      obs: both(inSync),
      extra: { desiredChanges: new Map([[KEY, "abc1234"]]) },
      reason: "adopted",
      sha: "abc1234",
    },
    {
      name: "a new ignore rule covers every change → ignored",
      item: item(),
      obs: both({ type: "InSync", ignored: { "hpa-replicas": 1 } }),
      extra: { context: createCompareContext({ ignoreRules: [{ name: "hpa-replicas", paths: ["spec.replicas"] }] }) },
      reason: "ignored",
      sha: null,
    },
    { name: "an Extra object deleted live → deleted", item: item({ type: "Extra", changes: [] }), obs: { drift: inSync, inDesired: false, inLive: false }, reason: "deleted" },
    { name: "an object gone on both sides → deleted", item: item(), obs: { drift: inSync, inDesired: false, inLive: false }, reason: "deleted" },
    {
      name: "a Missing object dropped from Git → adopted",
      item: item({ type: "Missing", changes: [] }),
      obs: { drift: inSync, inDesired: false, inLive: false },
      extra: { desiredChanges: new Map([[KEY, "def5678"]]) },
      reason: "adopted",
      sha: "def5678",
    },
    {
      name: "adoption falls back to the approved revision",
      item: item(),
      obs: both(inSync),
      extra: { desiredChanges: new Map([[KEY, ""]]), approvedSha: "fff0000" },
      reason: "adopted",
      sha: "fff0000",
    },
  ];

  it.each(resolutions)("$name", (c) => {
    const plan = planDriftLifecycle({ now: NOW, open: [c.item], results: new Map([[KEY, c.obs]]), ...c.extra });
    expect(plan.update).toEqual([]);
    expect(plan.open).toEqual([]);
    expect(plan.resolve).toEqual([{ id: "d1", key: KEY, reason: c.reason, sha: c.sha ?? null, resolvedAt: NOW, durationMs: 3_600_000 }]);
  });

  it("accepts bare drift results (presence inferred from the type)", () => {
    const plan = planDriftLifecycle({
      now: NOW,
      open: [item()],
      results: new Map<string, ObjectDrift>([
        [KEY, inSync],
        ["apps/Deployment/shop/web", { type: "Missing", ignored: {} }],
      ]),
    });
    expect(plan.resolve.map((r) => r.reason)).toEqual(["reverted"]);
    expect(plan.open.map((o) => [o.key, o.type])).toEqual([["apps/Deployment/shop/web", "Missing"]]);
  });

  it("leaves items of keys the run did not observe alone", () => {
    expect(planDriftLifecycle({ now: NOW, open: [item()], results: new Map() })).toEqual({ open: [], update: [], resolve: [] });
  });

  it("a rule covering only some of the changes does not resolve as ignored", () => {
    const extra: Change = { ...(replicasChanges[0] as Change), path: ["spec", "paused"], display: "spec.paused" };
    const rules = createCompareContext({ ignoreRules: [{ name: "r", paths: ["spec.replicas"] }] }).ignoreRules;
    expect(coveredByRules(item({ changes: [...replicasChanges, extra] }), rules)).toBe(false);
    expect(coveredByRules(item(), rules)).toBe(true);
    const selector = createCompareContext({ ignoreRules: [{ name: "img", paths: ["spec.template.spec.containers[name=api].image"] }] }).ignoreRules;
    const image: Change = { ...(replicasChanges[0] as Change), path: ["spec", "template", "spec", "containers", 0, "image"], display: "spec.template.spec.containers[name=api].image" };
    expect(coveredByRules(item({ changes: [image] }), selector)).toBe(true);
  });

  it("answers how long drift lived within a window", () => {
    const items = [
      { openedAt: "2024-04-28T00:00:00Z", resolvedAt: "2024-04-29T06:00:00Z" }, // 6h inside
      { openedAt: "2024-04-30T10:00:00Z", resolvedAt: "2024-04-30T10:30:00Z" }, // 30m
      { openedAt: "2024-05-04T23:00:00Z", resolvedAt: null }, // open: 1h until now
      { openedAt: "2024-05-06T00:00:00Z", resolvedAt: null }, // after the window
    ];
    const ms = driftTimeWithin(items, "2024-04-29T00:00:00Z", "2024-05-06T00:00:00Z", "2024-05-05T00:00:00Z");
    expect(ms).toBe((6 * 60 + 30 + 60) * 60_000);
  });
});
