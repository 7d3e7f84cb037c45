import { test, expect } from "./fixtures";
import { AccessibilityScan } from "./support/axe";
import { EnvironmentPage } from "./pages/environmentPage";

test.describe("applications", () => {
  test.describe("a viewer", () => {
    test.use({ role: "viewer" });

    test("goes from production to its api application: source, revisions, open drift, and that it is not paused", async ({ page, capture }) => {
      const prod = new EnvironmentPage(page, "production");
      await prod.open();
      await prod.header.getByRole("link", { name: "applications" }).click();
      await expect(page).toHaveURL(/\/environments\/production\/applications$/);
      // Discovered from production's Flux: the bootstrap, infrastructure, the apps Kustomization and one per service.
      for (const name of ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-web", "shop-worker", "shop-redis"]) {
        await expect(page.getByRole("link", { name: `flux-system/${name}`, exact: true })).toBeVisible();
      }
      await expect(page.getByRole("row").filter({ hasText: "flux-system/infra-controllers" })).toContainText("shop:infrastructure/controllers@main");
      // The HelmRelease infra-controllers applies is an application of its own, released from its chart.
      await expect(page.getByRole("row").filter({ hasText: "ingress-nginx/ingress-nginx" })).toContainText("In sync");
      const row = page.getByRole("row").filter({ hasText: "flux-system/shop-api" });
      // Approved but not applied after its stale window: the most urgent of its states.
      await expect(row).toContainText("Stale");
      await expect(page.getByRole("row").filter({ hasText: "flux-system/shop-web" })).toContainText("In sync");
      await row.getByRole("link", { name: "flux-system/shop-api" }).click();

      await expect(page.getByRole("heading", { level: 1 })).toContainText("flux-system/shop-api");
      await expect(page.getByText("Kustomization flux-system/shop-api")).toBeVisible();
      await expect(page.getByText(/shop:apps\/production\/api@main/)).toBeVisible();
      await expect(page.getByTestId("follows")).toHaveText("branch main");
      // The demo's incident, inside this one application: the api scaled by hand. The worker edit belongs to shop-worker.
      const drift = page.getByRole("region", { name: "Open drift" });
      await expect(drift.getByRole("link", { name: "Deployment shop/api" })).toBeVisible();
      await expect(drift.getByRole("link", { name: "Deployment shop/worker" })).toHaveCount(0);
      const reconciliation = page.getByRole("region", { name: "Reconciliation" });
      await expect(reconciliation).toContainText("Not paused");
      // A viewer reads, and is offered nothing to press.
      await expect(reconciliation.getByRole("button")).toHaveCount(0);
      await capture(page, "application-production");

      const scan = new AccessibilityScan(page);
      await scan.scan("application page");
      expect(scan.violations).toEqual([]);
    });

    test("production's ingress-nginx HelmRelease: its desired state is the release Helm installed", async ({ page }) => {
      await page.goto("/environments/production/applications/ingress-nginx%2Fingress-nginx");
      await expect(page.getByText("HelmRelease ingress-nginx/ingress-nginx")).toBeVisible();
      const release = page.getByRole("region", { name: /Helm release/ });
      await expect(release).toContainText("ingress-nginx 4.11.3 (app 1.11.3) · revision 1 · deployed");
      await expect(release).toContainText("Git's values are the released ones.");
      // The chart's Deployment, Service and ServiceAccount, as Helm applied them, and no drift in them.
      await expect(page.locator("dt", { hasText: /^Objects$/ }).locator("xpath=following-sibling::dd[1]")).toHaveText("3");
      await expect(page.getByRole("region", { name: "Open drift" })).toContainText("Live matches Git for this application.");
    });

    test("staging's app-of-apps: the root Application is paused by hand, the service it deploys still syncs", async ({ page }) => {
      await page.goto("/environments/staging/applications");
      const root = page.getByRole("row").filter({ hasText: "argocd/shop-staging" });
      await expect(root).toContainText("shop:envs/staging/apps@main");
      await expect(root).toContainText("Paused");
      for (const service of ["api", "web", "worker", "redis"]) {
        await expect(page.getByRole("row").filter({ hasText: `argocd/staging-${service}` })).toContainText(`shop:envs/staging/${service}@main`);
      }
      await page.getByRole("link", { name: "argocd/staging-api", exact: true }).click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText("argocd/staging-api");
      await expect(page.getByText("Application argocd/staging-api")).toBeVisible();
      await expect(page.getByRole("region", { name: "Open drift" })).toContainText("Live matches Git for this application.");
      await expect(page.getByRole("region", { name: "Reconciliation" })).toContainText("Not paused");
    });
  });

  test.describe("an operator", () => {
    test("is offered to pause just this application; the form names it and asks for production's name", async ({ page }) => {
      await page.goto("/environments/production/applications/flux-system%2Fshop-api");
      const reconciliation = page.getByRole("region", { name: "Reconciliation" });
      await reconciliation.getByRole("button", { name: "Pause this application…" }).click();
      const form = page.getByRole("form", { name: "Pause reconciliation of flux-system/shop-api in production" });
      await expect(form).toBeVisible();
      await expect(form).toContainText("Driftwatch will suspend Kustomization/flux-system/shop-api on the cluster");
      await expect(form.getByRole("textbox", { name: "Type “production” to confirm" })).toBeVisible();
      await expect(form.getByRole("button", { name: "Pause", exact: true })).toBeDisabled();
      const scan = new AccessibilityScan(page);
      await scan.scan("application pause form");
      expect(scan.violations).toEqual([]);
      // Leave the demo's story as it is.
      await form.getByRole("button", { name: "Cancel" }).click();
      await expect(form).toHaveCount(0);
    });

    test("a paused environment shows its pause on its application, with resume", async ({ page }) => {
      await page.goto("/environments/test/applications/default");
      const reconciliation = page.getByRole("region", { name: "Reconciliation" });
      await expect(reconciliation.getByRole("status")).toContainText("Paused");
      await expect(reconciliation.getByRole("button", { name: "Resume reconciliation" })).toBeVisible();
      await expect(reconciliation.getByRole("button", { name: "Pause this application…" })).toHaveCount(0);
    });
  });
});
