import { test, expect } from "./fixtures";
import { EnvironmentsPage } from "./pages/environmentsPage";

test.describe("environments page", () => {
  test("three cards in promotion order: test → staging → production", async ({ page, capture }) => {
    const envs = new EnvironmentsPage(page);
    await envs.open();
    await expect(envs.cards).toHaveCount(3);
    expect(await envs.order()).toEqual(["test", "staging", "production"]);
    await capture(page, "environments");
  });

  test("production is Stale and Drifted because its Git source fails with AuthenticationFailed", async ({ page }) => {
    const prod = new EnvironmentsPage(page).card("production");
    await new EnvironmentsPage(page).open();
    await expect(prod.status("Stale")).toBeVisible();
    await expect(prod.status("Drifted")).toBeVisible();
    await expect(prod.row("Behind")).toContainText(/1 approved commit not applied/);
    await expect(prod.row("Controller")).toContainText("GitRepository AuthenticationFailed");
    await expect(prod.row("Controller")).toContainText(/authentication required/);
    // The approved revision is the 1.8.0 promotion; the applied one is still 1.7.0.
    await expect(prod.row("Approved")).toContainText("promote to production: api: 1.8.0 adds checkout retries with backoff");
    await expect(prod.row("Applied")).toContainText("promote to production: api: 1.7.0 moves sessions to redis");
    // Two drifted objects, one of them unowned.
    await expect(prod.row("Drift")).toContainText("Modified");
    await expect(prod.row("Drift")).toContainText("1 unowned");
    await expect(prod.alerts).toContainText(/production is stale/);
    await expect(prod.alerts).toContainText(/AuthenticationFailed/);
  });

  test("staging shows an unattributed pause detected in the cluster, written by kubectl-patch", async ({ page }) => {
    const envs = new EnvironmentsPage(page);
    await envs.open();
    const staging = envs.card("staging");
    await expect(staging.status("Paused")).toBeVisible();
    await expect(staging.pause).toContainText("Unattributed pause");
    await expect(staging.pause).toContainText("Application/argocd/shop-staging");
    await expect(staging.pause).toContainText(/detected .* ago, last written by kubectl-patch/);
    await expect(staging.pause).toContainText("Nobody has taken ownership");
  });

  test("test shows the dashboard pause by Dan with his reason and expiry", async ({ page }) => {
    const envs = new EnvironmentsPage(page);
    await envs.open();
    const testEnv = envs.card("test");
    await expect(testEnv.status("Paused")).toBeVisible();
    await expect(testEnv.pause).toContainText(/^Paused/);
    await expect(testEnv.pause).toContainText("by Dan Weber");
    await expect(testEnv.pause).toContainText("Load-testing api 1.8.0 in test; holding reconciliation so results stay comparable");
    await expect(testEnv.pause).toContainText(/until in \d+h/);
    await expect(testEnv.row("Controller")).toContainText("suspended by driftwatch");
  });
});
