import { test, expect } from "./fixtures";
import { EnvironmentPage } from "./pages/environmentPage";
import { EnvironmentsPage } from "./pages/environmentsPage";
import type { Page } from "@playwright/test";

/** Marks the document so a reload (which would drop the mark) is detected, and counts main-frame navigations. */
async function watchForReloads(page: Page): Promise<() => Promise<void>> {
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations++;
  });
  await page.evaluate(() => {
    (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload = true;
  });
  return async () => {
    expect(navigations, "the page navigated or reloaded").toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
  };
}

test.describe("live update", () => {
  // The collector polls every 10 s and the pages every 4 s; a change shows within about 15 s.
  test.setTimeout(120_000);

  test("a kubectl label made during the test appears on test's drift page, attributed to kubectl-label, without a reload", async ({ page, context, kube, capture }) => {
    const owner = `e2e-${Date.now().toString(36)}`;
    const testEnv = new EnvironmentPage(page, "test");
    const web = testEnv.driftRow("Deployment shop/web");

    // A leftover label from an interrupted run would make the test pass for the wrong reason: clear it first.
    if ("owner" in (await kube.deploymentLabels("test", "shop", "web"))) {
      await kube.unlabelDeployment("test", "shop", "web", "owner").catch(() => undefined);
    }
    await testEnv.open();
    await expect(testEnv.heading).toBeVisible();
    await expect(web).toHaveCount(0, { timeout: 30_000 });

    const overview = await context.newPage();
    const envs = new EnvironmentsPage(overview);
    await envs.open();
    const drift = envs.card("test").row("Drift");
    await expect(drift).toHaveText("none", { timeout: 30_000 });

    const noReloadHere = await watchForReloads(page);
    const noReloadThere = await watchForReloads(overview);
    try {
      const change = await kube.labelDeployment("test", "shop", "web", "owner", owner);
      console.log(`manual change via ${change.via}: ${change.output}`);
      expect(change.output).toContain("deployment.apps/web labeled");

      await expect(web).toBeVisible({ timeout: 30_000 });
      await expect(web).toContainText("Modified");
      await expect(web).toContainText("metadata.labels.owner");
      await expect(web).toContainText("kubectl-label");
      await expect(web).toContainText("human");
      await expect(web).toContainText("unowned");
      await expect(testEnv.driftSummary).toContainText(/1 open, 1 unowned, 1 by people/);
      await noReloadHere();

      // The environments page, open in another tab, counts it too.
      await expect(drift).toContainText("Modified", { timeout: 30_000 });
      await expect(drift).toContainText("1 unowned");
      await noReloadThere();
      await capture(page, "environment-test-live-change");

      // The object page reads the new value and its manager.
      await testEnv.objectLink("Deployment shop/web").click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Deployment shop/web");
      const diff = page.getByRole("table", { name: /on the left, .* on the right/ });
      await expect(diff.getByRole("row").filter({ hasText: `owner: ${owner}` })).toContainText("kubectl-label");
    } finally {
      // Leave test as the story has it: removing the label reverts the drift.
      await kube.unlabelDeployment("test", "shop", "web", "owner").catch(() => undefined);
    }
    await testEnv.open();
    await expect(web).toHaveCount(0, { timeout: 30_000 });
  });
});
