import { describe, expect, it } from "vitest";
import { isLiveTable, isProgressOnly, queryPrefixesFor } from "./invalidation";

describe("queryPrefixesFor", () => {
  it("refetches the drift list, the object and the overview after a drift item changes", () => {
    const keys = queryPrefixesFor(["DriftItem"]);
    expect(keys).toEqual(expect.arrayContaining(["drift", "object", "environments", "environment", "timeline"]));
    expect(keys).not.toContain("lineage");
  });

  it("names each prefix once for several tables", () => {
    const keys = queryPrefixesFor(["DriftItem", "LiveObject", "CollectionRun"]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("run");
  });

  it("does not refetch drift lists for a run's progress alone (it is written many times a run)", () => {
    expect(queryPrefixesFor(["CollectionRun"])).not.toContain("drift");
    expect(queryPrefixesFor(["CollectionRun"])).toContain("environment");
  });

  it("refetches lineage and commits after a new revision, not the object pages", () => {
    expect(queryPrefixesFor(["Revision"])).toEqual(expect.arrayContaining(["lineage", "commit"]));
    expect(queryPrefixesFor(["Revision"])).not.toContain("object");
  });

  it("ignores tables it does not know, and never announces who signs in", () => {
    expect(queryPrefixesFor(["Session", "User", "NoSuchTable"])).toEqual([]);
    expect(isLiveTable("Session")).toBe(false);
    expect(isLiveTable("User")).toBe(false);
    expect(isLiveTable("DriftItem")).toBe(true);
    expect(isLiveTable("constructor")).toBe(false);
  });
});

describe("isProgressOnly", () => {
  it("is a change that wrote only runs, not one that wrote what a run found", () => {
    expect(isProgressOnly(["CollectionRun"])).toBe(true);
    expect(isProgressOnly(["CollectionRun", "DriftItem"])).toBe(false);
    expect(isProgressOnly([])).toBe(false);
  });
});
