// `npm test`: every check in order, each a real tool run, then one summary line
// `N passed, N failed, N skipped` counted from the runners' own reports.
//
// On CI (CI=true) a skipped test is a failure unless it depends on who runs the
// suite (root-only cases skip for a normal user): a suite that silently skips
// because a tool is missing would otherwise read as green.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

interface Step {
  name: string;
  cmd: string[];
  /** Reads pass/fail counts from the runner's JSON report, when it writes one. */
  report?: string;
}

const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-test-"));
const only = process.argv.slice(2);

const vitestStep = (project: string): Step => ({
  name: project,
  cmd: ["npx", "vitest", "run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(reportDir, project + ".json")}`, "--passWithNoTests"],
  report: path.join(reportDir, project + ".json"),
});

const steps: Step[] = [
  { name: "prisma-generate", cmd: ["npx", "tsx", "scripts/prisma-generate.ts"] },
  // The real etcd, kube-apiserver, Helm and Flux binaries the integration tests run; built
  // once per pinned version into the user's cache. A failed build fails this step and the
  // tests that need them fail too: nothing is skipped for want of a binary.
  { name: "realkube-build", cmd: ["npx", "tsx", "scripts/realkube-build.ts"] },
  { name: "typecheck", cmd: ["npx", "tsc", "--noEmit"] },
  { name: "lint", cmd: ["npx", "eslint", "--max-warnings=0", "."] },
  vitestStep("unit"),
  vitestStep("integration"),
  vitestStep("faults"),
  // kubesim against the real kube-apiserver built above; writes packages/kubesim/CONFORMANCE.md.
  vitestStep("conformance"),
  { name: "e2e", cmd: ["npx", "playwright", "test", "--reporter=list,json"], report: path.join(reportDir, "e2e.json") },
  // After e2e: the production build it made is current, so the contract's demo starts without building.
  vitestStep("contract"),
];

let passed = 0;
let failed = 0;
let skipped = 0;
const failures: string[] = [];
const onCi = Boolean(process.env.CI) && process.env.CI !== "false";
/** Skips that depend on the user running the suite, not on a missing tool. */
const USER_DEPENDENT_SKIP = /\b(as root|as a normal user)\b/;

interface Counts {
  passed: number;
  failed: number;
  /** Titles of the skipped tests. */
  skipped: string[];
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

function countVitest(file: string): Counts | null {
  if (!fs.existsSync(file)) return null;
  const r = JSON.parse(fs.readFileSync(file, "utf8")) as VitestReport;
  const skippedTitles = r.testResults.flatMap((f) =>
    f.assertionResults.filter((a) => a.status === "skipped" || a.status === "pending" || a.status === "todo").map((a) => a.fullName),
  );
  return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: skippedTitles };
}

interface PlaywrightSuite {
  title: string;
  specs?: { title: string; tests: { status: string }[] }[];
  suites?: PlaywrightSuite[];
}

function playwrightSkips(suites: PlaywrightSuite[] | undefined, prefix = ""): string[] {
  return (suites ?? []).flatMap((s) => {
    const title = prefix ? `${prefix} > ${s.title}` : s.title;
    const own = (s.specs ?? []).filter((spec) => spec.tests.some((t) => t.status === "skipped")).map((spec) => `${title} > ${spec.title}`);
    return [...own, ...playwrightSkips(s.suites, title)];
  });
}

function countPlaywright(file: string): Counts | null {
  if (!fs.existsSync(file)) return null;
  const r = JSON.parse(fs.readFileSync(file, "utf8")) as {
    stats?: { expected: number; unexpected: number; flaky: number };
    suites?: PlaywrightSuite[];
  };
  if (!r.stats) return null;
  return { passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected, skipped: playwrightSkips(r.suites) };
}

for (const step of steps) {
  if (only.length > 0 && !only.includes(step.name)) continue;
  console.log(`\n━━ ${step.name}: ${step.cmd.join(" ")}`);
  const started = Date.now();
  const result = spawnSync(step.cmd[0] ?? "npx", step.cmd.slice(1), {
    stdio: "inherit",
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(reportDir, "e2e.json"), FORCE_COLOR: process.env.CI ? "0" : "1" },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const counts = step.report ? (step.name === "e2e" ? countPlaywright(step.report) : countVitest(step.report)) : null;
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped.length;
    const forbidden = onCi ? counts.skipped.filter((title) => !USER_DEPENDENT_SKIP.test(title)) : [];
    for (const title of forbidden) console.log(`✗ skipped on CI, which counts as failed: ${title}`);
    failed += forbidden.length;
    if (counts.failed > 0 || forbidden.length > 0 || result.status !== 0) failures.push(step.name);
    if (counts.failed === 0 && result.status !== 0) failed += 1; // the runner failed outside any test
  } else {
    // A check without test counts (typecheck, lint) counts as one test.
    if (result.status === 0) passed += 1;
    else {
      failed += 1;
      failures.push(step.name);
    }
  }
  console.log(`━━ ${step.name}: ${result.status === 0 ? "ok" : "FAILED"} in ${seconds}s`);
}

fs.rmSync(reportDir, { recursive: true, force: true });
if (failures.length) console.log(`\nFailed steps: ${failures.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
