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

  test("production is Stale and Drifted: its api application has not applied the 1.8.0 promotion because the Git source fails with AuthenticationFailed", async ({ page }) => {
    const prod = new EnvironmentsPage(page).card("production");
    await new EnvironmentsPage(page).open();
    await expect(prod.status("Stale")).toBeVisible();
    await expect(prod.status("Drifted")).toBeVisible();
    await expect(prod.root).toContainText(/1 application has not applied the approved revision, the oldest for \d+h/);
    // Nine applications discovered from production's Flux: infrastructure, the apps Kustomization, one per service and ingress-nginx's HelmRelease.
    const apps = prod.row("Applications");
    await expect(apps).toContainText("9 applications:");
    await expect(apps).toContainText("2 drifted");
    await expect(apps).toContainText("1 stale");
    await expect(apps.getByRole("listitem").filter({ hasText: "flux-system/shop-api" })).toContainText("Stale");
    await expect(apps.getByRole("listitem").filter({ hasText: "flux-system/shop-worker" })).toContainText("Drifted");
    // Each application has its own revisions and controller: the card leaves them to the applications' pages.
    await expect(prod.row("Applied")).toHaveCount(0);
    await expect(prod.row("Controller")).toHaveCount(0);
    // Two drifted objects, one of them unowned.
    await expect(prod.row("Drift")).toContainText("Modified");
    await expect(prod.row("Drift")).toContainText("1 unowned");
    await expect(prod.alerts).toContainText(/production: 1 drifted object with no owner/);
    await expect(prod.alerts).toContainText("GitRepository/flux-system/flux-system is failing (AuthenticationFailed)");
  });

  test("staging is an Argo CD app-of-apps: the root Application and one child per service", async ({ page }) => {
    const envs = new EnvironmentsPage(page);
    await envs.open();
    const apps = envs.card("staging").row("Applications");
    await expect(apps).toContainText("5 applications:");
    await expect(apps).toContainText("1 paused");
    // Only the root's automated sync was turned off; its children keep syncing.
    await expect(apps.getByRole("listitem").filter({ hasText: "argocd/shop-staging" })).toContainText("Paused");
    await expect(apps.getByRole("listitem").filter({ hasText: "argocd/staging-api" })).toHaveCount(0);
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
