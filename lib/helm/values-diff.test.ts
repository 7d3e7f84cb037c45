import { describe, expect, it } from "vitest";
import { leafDigests, valuesDiff } from "./values-diff";

const KEY = "instance-key";

describe("valuesDiff", () => {
  const released = leafDigests({ replicaCount: 2, ui: { message: "hello", color: "#34577c" }, db: { password: "old-password" }, extraEnvs: [{ name: "TOKEN", value: "from-a-secret" }], tolerations: [] }, KEY);

  it("keeps only keyed digests of the released values, by path", () => {
    expect(Object.keys(released).sort()).toEqual(["db.password", "extraEnvs[0].name", "extraEnvs[0].value", "replicaCount", "tolerations", "ui.color", "ui.message"]);
    expect(JSON.stringify(released)).not.toMatch(/hello|old-password|from-a-secret|34577c/);
    expect(leafDigests({ a: 1 }, "another key").a).not.toBe(leafDigests({ a: 1 }, KEY).a);
  });

  it("lists what differs, showing Git's side except where it could be a secret", () => {
    const git = { replicaCount: 3, ui: { message: "hello", color: "#34577c" }, db: { password: "new-password" }, extraEnvs: [{ name: "TOKEN", value: "rotated-secret" }], image: { tag: "6.14.1" } };
    expect(valuesDiff(git, ["rotated-secret"], released, KEY)).toEqual({
      entries: [
        { path: "db.password", change: "changed", git: "(masked)" },
        { path: "extraEnvs[0].value", change: "changed", git: "(masked)" },
        { path: "image.tag", change: "added", git: '"6.14.1"' },
        { path: "replicaCount", change: "changed", git: "3" },
        { path: "tolerations", change: "removed", git: null },
      ],
      total: 5,
    });
  });

  it("finds nothing when Git's values are the released ones, whatever their key order", () => {
    const git = { tolerations: [], extraEnvs: [{ value: "from-a-secret", name: "TOKEN" }], db: { password: "old-password" }, ui: { color: "#34577c", message: "hello" }, replicaCount: 2 };
    expect(valuesDiff(git, [], released, KEY)).toEqual({ entries: [], total: 0 });
  });
});
