import { describe, expect, it } from "vitest";
import { RunOwners } from "./run-owners";

describe("RunOwners", () => {
  it("answers from the render beneath this run's tracked objects, and leaves the render's map as it was", () => {
    const rendered = new Map([["apps/Deployment/shop/api", "app-api"]]);
    const owners = new RunOwners(rendered);
    owners.set("/ConfigMap/shop/api-debug", "app-api");
    expect(owners.get("apps/Deployment/shop/api")).toBe("app-api");
    expect(owners.get("/ConfigMap/shop/api-debug")).toBe("app-api");
    expect(owners.has("/ConfigMap/shop/other")).toBe(false);
    // A list that starts over: the tracked object is forgotten, the rendered one stays.
    owners.forget("/ConfigMap/shop/api-debug");
    owners.forget("apps/Deployment/shop/api");
    expect(owners.has("/ConfigMap/shop/api-debug")).toBe(false);
    expect(owners.get("apps/Deployment/shop/api")).toBe("app-api");
    // The next run starts from the same render, untouched by this one.
    expect([...rendered.keys()]).toEqual(["apps/Deployment/shop/api"]);
  });
});
