import { describe, expect, it } from "vitest";
import { environmentSchema } from "@/lib/config/schema";
import { judgedPerApplication } from "./per-application";

/** An environment as driftwatch.yaml's entry is stored on its row (parsed, then JSON). */
const stored = (entry: Record<string, unknown>) => JSON.parse(JSON.stringify(environmentSchema.parse({ name: "production", cluster: { kubeconfig: "/k" }, ...entry }))) as unknown;

describe("judgedPerApplication", () => {
  it("judges an environment that discovers, or lists its applications, application by application", () => {
    expect(judgedPerApplication(stored({ discover: { flux: {} } }))).toBe(true);
    // The parsed list also fills `source` with the first application's, for the views still per environment.
    expect(judgedPerApplication(stored({ applications: [{ name: "web", source: { repository: "shop", path: "apps/web" } }] }))).toBe(true);
  });

  it("judges a one-source environment as the environment, as before applications existed", () => {
    expect(judgedPerApplication(stored({ source: { repository: "shop", path: "envs/production" } }))).toBe(false);
    expect(judgedPerApplication({})).toBe(false);
    expect(judgedPerApplication(null)).toBe(false);
  });
});
