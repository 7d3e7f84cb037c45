// Differential conformance: every scenario runs against kubesim and a real
// kube-apiserver (tools/realkube); what each client saw is normalised and
// compared field by field. A difference fails its scenario unless kubesim's
// README lists it as accepted, with the reason. The run writes the report
// (packages/kubesim/CONFORMANCE.md) and the figure in kubesim's README.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffScenario, observe, readAccepted, renderReport, REPORT, SCENARIO_THREW, updateReadmeFigure, type Accepted, type Scenario, type ScenarioResult } from "./harness";
import { clientScenarios } from "./scenarios/clients";
import { crdScenarios } from "./scenarios/crds";
import { kindScenarios } from "./scenarios/kinds";
import { kubectlScenarios } from "./scenarios/kubectl";
import { serverScenarios } from "./scenarios/server";
import { startKubeSimTarget, startRealTarget, type Target } from "./target";

const scenarios: Scenario[] = [...serverScenarios, ...kubectlScenarios, ...clientScenarios, ...crdScenarios, ...kindScenarios];

let kubesim: Target;
let real: Target;
let realVersion = "";
const accepted: Accepted[] = readAccepted();
const results: ScenarioResult[] = [];
const started = Date.now();

beforeAll(async () => {
  [kubesim, real] = await Promise.all([startKubeSimTarget(), startRealTarget()]);
  realVersion = ((await real.http("GET", "/version")).json as { gitVersion: string }).gitVersion;
}, 90_000);

afterAll(async () => {
  await Promise.all([kubesim?.stop(), real?.stop()]);
  // A partial run (vitest -t) must not overwrite the committed report with a subset.
  if (results.length !== scenarios.length) return;
  const used = new Set(results.flatMap((r) => r.differences.map((d) => d.acceptedBy)));
  const unused = accepted.filter((a) => !used.has(a));
  fs.writeFileSync(REPORT, renderReport(results, unused, realVersion));
  console.log(`[conformance] ${results.length} scenarios against kubesim and kube-apiserver ${realVersion} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  updateReadmeFigure(results);
});

describe("kubesim against a real kube-apiserver", () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      // Both servers at once: the scenarios are independent of each other's timing.
      const [a, b] = await Promise.all([observe(scenario, kubesim), observe(scenario, real)]);
      if (process.env.CONFORMANCE_DUMP) fs.writeFileSync(`${process.env.CONFORMANCE_DUMP}/${scenario.name.replace(/\W+/g, "-")}.json`, JSON.stringify({ kubesim: a, real: b }, null, 1));
      const result = diffScenario(scenario.name, a, b, accepted);
      results.push(result);
      const unaccepted = result.differences.filter((d) => !d.accepted).map((d) => `${d.path}: kubesim ${JSON.stringify(d.kubesim) ?? "absent"} / real ${JSON.stringify(d.real) ?? "absent"}`);
      expect(unaccepted, `differences not accepted in packages/kubesim/README.md (see packages/kubesim/CONFORMANCE.md)`).toEqual([]);
      // A step that throws on both servers alike would otherwise compare equal and hide the rest.
      expect({ kubesim: a[SCENARIO_THREW], real: b[SCENARIO_THREW] }).toEqual({ kubesim: undefined, real: undefined });
    }, 180_000);
  }

  it("accepts no difference that no longer occurs", () => {
    // Runs after every scenario (vitest keeps the order); a stale row would hide a future regression.
    expect(results).toHaveLength(scenarios.length);
    const used = new Set(results.flatMap((r) => r.differences.map((d) => d.acceptedBy)));
    expect(accepted.filter((a) => !used.has(a)).map((a) => `${a.scenario} / ${a.field}`)).toEqual([]);
  });
});
