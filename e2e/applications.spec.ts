import { test, expect } from "./fixtures";
import { AccessibilityScan } from "./support/axe";
import { EnvironmentPage } from "./pages/environmentPage";

test.describe("applications", () => {
  test.describe("a viewer", () => {
    test.use({ role: "viewer" });

    test("goes from production to its application: source, revisions, open drift, and that it is not paused", async ({ page, capture }) => {
      const prod = new EnvironmentPage(page, "production");
      await prod.open();
      await prod.header.getByRole("link", { name: "applications" }).click();
      await expect(page).toHaveURL(/\/environments\/production\/applications$/);
      const row = page.getByRole("row").filter({ hasText: "default" });
      // Approved but not applied after its stale window: the most urgent of its states.
      await expect(row).toContainText("Stale");
      await row.getByRole("link", { name: "default" }).click();

      await expect(page.getByRole("heading", { level: 1 })).toContainText("default");
      await expect(page.getByText("Kustomization flux-system/shop-production")).toBeVisible();
      await expect(page.getByText(/shop:envs\/production@main/)).toBeVisible();
      await expect(page.getByTestId("follows")).toHaveText("branch main");
      // The demo's incident: api scaled by hand, worker edited; each drift item leads to its object.
      const drift = page.getByRole("region", { name: "Open drift" });
      await expect(drift.getByRole("link", { name: "Deployment shop/api" })).toBeVisible();
      const reconciliation = page.getByRole("region", { name: "Reconciliation" });
      await expect(reconciliation).toContainText("Not paused");
      // A viewer reads, and is offered nothing to press.
      await expect(reconciliation.getByRole("button")).toHaveCount(0);
      await capture(page, "application-production");

      const scan = new AccessibilityScan(page);
      await scan.scan("application page");
      expect(scan.violations).toEqual([]);
    });
  });

  test.describe("an operator", () => {
    test("is offered to pause just this application; the form names it and asks for production's name", async ({ page }) => {
      await page.goto("/environments/production/applications/default");
      const reconciliation = page.getByRole("region", { name: "Reconciliation" });
      await reconciliation.getByRole("button", { name: "Pause this application…" }).click();
      const form = page.getByRole("form", { name: "Pause reconciliation of default in production" });
      await expect(form).toBeVisible();
      await expect(form).toContainText("Driftwatch will suspend Kustomization/flux-system/shop-production on the cluster");
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
