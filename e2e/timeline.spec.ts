import fs from "node:fs";
import { test, expect } from "./fixtures";
import { TimelinePage } from "./pages/timelinePage";

/** RFC 4180 rows: enough for checking an export, quotes and commas included. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

test.describe("timeline", () => {
  test("filtered to production, it tells today's incident in order and exports it as CSV and Markdown", async ({ page, capture }) => {
    const timeline = new TimelinePage(page);
    await timeline.open();
    await timeline.environment.selectOption("production");
    await expect(page).toHaveURL(/environment=production/);
    await expect(timeline.summary).toBeVisible();

    await expect(timeline.event("Drift opened: Deployment shop/api (Modified)")).toHaveCount(1);
    await expect(timeline.event("Drift opened: Deployment shop/worker (Modified)")).toContainText("kubectl-edit");
    await expect(timeline.event(/GitRepository\/flux-system\/flux-system is failing \(AuthenticationFailed\)/)).toHaveCount(1);
    // The 1.8.0 promotion concerns one of production's applications: only the api's approved revision moved.
    await expect(timeline.event(/flux-system\/shop-api in production approved [0-9a-f]{7}/)).not.toHaveCount(0);
    // The demo's claim (e2e/keyboard.spec.ts makes and releases one of its own in production earlier in the run).
    await expect(timeline.event("Divergence claimed").filter({ hasText: "Absorbing the checkout retry storm by hand" })).toHaveCount(1);
    // Nothing from the other environments.
    await expect(timeline.event(/staging now runs|test now runs|staging-api|Unattributed pause|shop-test/)).toHaveCount(0);
    await capture(page, "timeline-production");

    const csv = await timeline.download("CSV");
    expect(csv.suggestedFilename()).toMatch(/^driftwatch-timeline-production.*\.csv$/);
    const [header, ...rows] = parseCsv(fs.readFileSync(await csv.path(), "utf8")).filter((r) => r.some((c) => c !== ""));
    expect(header).toBeDefined();
    const col = (name: string) => {
      const i = header!.indexOf(name);
      expect(i, `CSV column ${name} in ${header!.join(",")}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const envCol = col("environment");
    const titleCol = col("title");
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const r of rows) expect(r[envCol]).toBe("production");
    const titles = rows.map((r) => r[titleCol]);
    expect(titles).toContain("Drift opened: Deployment shop/api (Modified)");
    expect(titles).toContain("Drift opened: Deployment shop/worker (Modified)");
    expect(titles).toContain("Divergence claimed");

    const md = await timeline.download("Markdown (incident write-up)");
    expect(md.suggestedFilename()).toMatch(/\.md$/);
    const mdText = fs.readFileSync(await md.path(), "utf8");
    expect(mdText).toMatch(/^# Incident timeline: production$/m);
    expect(mdText).toContain("## Summary");
    expect(mdText).toContain("Drift opened: Deployment shop/worker (Modified)");
    expect(mdText).toContain("Absorbing the checkout retry storm by hand");
    expect(mdText).not.toMatch(/staging now runs|shop-test/);
    // Oldest first, as a write-up reads: the credential failure, then the manual scale, then the claim.
    const failing = mdText.indexOf("is failing (AuthenticationFailed)");
    const scaled = mdText.indexOf("Drift opened: Deployment shop/api");
    const claimed = mdText.indexOf("Divergence claimed");
    expect(failing).toBeGreaterThan(0);
    expect(failing).toBeLessThan(scaled);
    expect(scaled).toBeLessThan(claimed);
  });

  test("test's timeline shows Dan's pause with its reason; switching pauses off hides it; times show UTC on hover", async ({ page }) => {
    const timeline = new TimelinePage(page);
    await timeline.open("environment=test");
    const pause = timeline.event("Reconciliation paused: Kustomization/flux-system/shop-test");
    await expect(pause).toHaveCount(1);
    await expect(pause).toContainText("dan");
    await expect(pause).toContainText("Load-testing api 1.8.0 in test");
    await expect(pause.locator("time").first()).toHaveAttribute("title", /UTC$/);
    await timeline.typeFilter("Pauses").uncheck();
    await expect(page).toHaveURL(/type=/);
    await expect(timeline.event("Reconciliation paused")).toHaveCount(0);
    await expect(timeline.event(/test now runs/).first()).toBeVisible();
  });
});
