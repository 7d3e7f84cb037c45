import { test, expect } from "./fixtures";
import { MetricsPage } from "./pages/metricsPage";

test.describe("metrics", () => {
  test("five charts, each an SVG picture that describes its data", async ({ page, capture }) => {
    const metrics = new MetricsPage(page);
    await metrics.open();

    const lead = metrics.picture("Lead time, commit → live, per hop");
    await expect(lead).toBeVisible();
    // Staging and production discover their applications: their hops are their applications' (by promotion key), pooled.
    await expect(lead).toHaveAttribute("aria-label", /commit to test .*test to staging .*staging to production/);
    // A promotion commit is timed from the environment it was made in, not as a hop it never took (which read 0 ms).
    await expect(lead).not.toHaveAttribute("aria-label", /test to staging 0 ms|staging to production 0 ms/);

    const lifetime = metrics.picture("Drift lifetime");
    await expect(lifetime).toBeVisible();
    // The reverted (20 min) and the adopted (about 3 h) drift; the live-update test may add a short one.
    await expect(lifetime).toHaveAttribute("aria-label", /5–60 min [1-9]\d*, 1–6 h [1-9]/);
    await expect(metrics.chart("Drift lifetime")).toContainText(/([2-9]|\d\d+) resolved, [2-9] still open/);

    const edits = metrics.picture("Manual edits per week, by manager");
    await expect(edits).toBeVisible();
    await expect(edits).toHaveAttribute("aria-label", /kubectl-edit 2/);
    await expect(edits).toHaveAttribute("aria-label", /kubectl-set 1/);
    await expect(edits).toHaveAttribute("aria-label", /kubectl 1/);

    await expect(metrics.picture("Stale time per environment").first()).toBeVisible();
    // Production is stale while any of its applications is: its api has not applied 1.8.0 for over an hour.
    await expect(metrics.picture("Stale time per environment").first()).toHaveAttribute("aria-label", /production/);

    const pauses = metrics.picture("Pauses and their durations");
    await expect(pauses).toBeVisible();
    await expect(pauses).toHaveAttribute("aria-label", /staging .* active/);
    await expect(pauses).toHaveAttribute("aria-label", /test .* active/);

    // Every chart drew something: bars, columns or lanes.
    for (const svg of await page.locator("figure svg[role=img]").all()) {
      expect(await svg.locator("rect, line, path").count()).toBeGreaterThan(0);
    }
    await capture(page, "metrics");
  });

  test("the numbers behind a chart are one click away", async ({ page }) => {
    const metrics = new MetricsPage(page);
    await metrics.open();
    const chart = metrics.chart("Lead time, commit → live, per hop");
    await chart.getByText("Numbers").click();
    const table = chart.getByRole("table");
    await expect(table).toBeVisible();
    await expect(table.getByRole("row").filter({ hasText: "staging → production" })).toBeVisible();
  });
});
