import { test, expect } from "./fixtures";
import { AuditPage } from "./pages/auditPage";

test.describe("audit log", () => {
  test("records who paused test and who claimed the api scale, with their reasons, and its hash chain verifies", async ({ page, capture }) => {
    const audit = new AuditPage(page);
    await audit.open();
    await expect(audit.table).toBeVisible();

    await audit.open("action=pause.");
    const pause = audit.rows(/pause\.created/).filter({ hasText: "dan" });
    await expect(pause.first()).toContainText("test");
    await expect(pause.first()).toContainText("Load-testing api 1.8.0 in test");

    await audit.open("action=claim.");
    const claim = audit.rows(/claim\.created/).filter({ hasText: "olivia" });
    await expect(claim.first()).toContainText("production");
    await expect(claim.first()).toContainText("Absorbing the checkout retry storm by hand");

    await audit.open();
    await page.getByRole("button", { name: "Verify hash chain" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Chain/ })).toHaveText(/^Chain intact: \d+ events verified\.$/);
    await capture(page, "audit");
  });
});
