import { describe, expect, it } from "vitest";
import type { EnvironmentBadgeDto } from "@/lib/api/contract";
import { chainSteps } from "./promotion-chain";

const badge = (environment: string, application: string | null, state: EnvironmentBadgeDto["state"]): EnvironmentBadgeDto => ({
  environment,
  application,
  position: 0,
  state,
  since: null,
  through: null,
  viaDescendant: false,
  inferred: false,
  firstLiveAt: null,
  reason: null,
  reasonSince: null,
});

describe("chainSteps", () => {
  it("one step per environment; an environment of several applications is live only when all are, and says how far it got", () => {
    expect(chainSteps([badge("staging", null, "live"), badge("production", "api", "live"), badge("production", "web", "pending"), badge("production", "worker", "not-approved")])).toEqual([
      { environment: "staging", state: "live", sub: "live" },
      { environment: "production", state: "pending", sub: "pending · 1 of 3 live" },
    ]);
    expect(chainSteps([badge("production", "api", "live"), badge("production", "web", "live")])).toEqual([{ environment: "production", state: "live", sub: "live" }]);
    expect(chainSteps([badge("production", null, "not-approved")])).toEqual([{ environment: "production", state: "not-approved", sub: "not yet" }]);
  });
});
