import { test, expect } from "./fixtures";
import { ObjectPage } from "./pages/objectPage";
import { EnvironmentPage } from "./pages/environmentPage";
import { TimelinePage } from "./pages/timelinePage";

test.describe("drift history", () => {
  test("staging's api-config edit was reverted by Argo CD self-heal 20 minutes later", async ({ page, capture }) => {
    const obj = new ObjectPage(page);
    await obj.open("staging", "_/ConfigMap/shop/api-config");
    await expect(obj.heading).toHaveText("ConfigMap shop/api-config");
    // In sync now: the edit is history, not open drift.
    await expect(obj.owner).toContainText("Nothing to own: the object matches Git.");
    const reverted = obj.historyRows().filter({ hasText: "reverted" });
    await expect(reverted).toHaveCount(1);
    await expect(reverted).toContainText("data.CART_TTL");
    await expect(reverted).toContainText("kubectl-edit");
    await expect(reverted).toContainText("Modified");
    await expect(reverted.getByRole("cell").last()).toHaveText(/^20 ?m(in)?$/);
    await capture(page, "object-staging-api-config");
  });

  test("test's worker hot fix (FEATURE_BULK_EXPORT) was adopted into Git by Dan's commit three hours later", async ({ page, capture }) => {
    const obj = new ObjectPage(page);
    await obj.open("test", "apps/Deployment/shop/worker");
    await expect(obj.heading).toHaveText("Deployment shop/worker");
    const adopted = obj.historyRows().filter({ hasText: "adopted" });
    await expect(adopted).toHaveCount(1);
    await expect(adopted).toContainText("FEATURE_BULK_EXPORT");
    await expect(adopted).toContainText("kubectl-set");
    await expect(adopted.getByRole("cell").last()).toHaveText(/^3 ?h( \d+ ?m(in)?)?$/);
    // The adopting commit is linked, and is Dan's.
    const sha = adopted.getByRole("link", { name: /^[0-9a-f]{7}$/ });
    await expect(sha).toBeVisible();
    await sha.click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("worker: adopt FEATURE_BULK_EXPORT=true from the test hot fix");
    await expect(page.getByText(/Dan Weber <dan@shop\.example>/)).toBeVisible();
    await obj.open("test", "apps/Deployment/shop/worker");
    await capture(page, "object-test-worker");
  });

  test("resolved drift is listed with how it ended when the drift page shows resolved items", async ({ page }) => {
    const staging = new EnvironmentPage(page, "staging");
    await staging.open("status=resolved");
    const row = staging.driftRow("ConfigMap shop/api-config");
    await expect(row).toContainText(/resolved \(reverted\)/);
    const testEnv = new EnvironmentPage(page, "test");
    await testEnv.open("status=resolved");
    await expect(testEnv.driftRow("Deployment shop/worker")).toContainText(/resolved \(adopted\)/);
  });

  test("the timeline shows both lifetimes: opened, then reverted or adopted", async ({ page }) => {
    const timeline = new TimelinePage(page);
    await timeline.open();
    await timeline.quickRange("7 d").click();
    await expect(page).toHaveURL(/from=/);
    await expect(timeline.event("Drift resolved (reverted): ConfigMap shop/api-config")).toHaveCount(1);
    await expect(timeline.event("Drift opened: ConfigMap shop/api-config (Modified)")).toContainText("kubectl-edit");
    await expect(timeline.event("Drift resolved (adopted): Deployment shop/worker")).toContainText(/in commit [0-9a-f]{7}/);
    await expect(timeline.event(/Drift opened: Deployment shop\/worker \(Modified\)/).filter({ hasText: "FEATURE_BULK_EXPORT" })).toHaveCount(1);
  });
});
