import { test, expect, ACCOUNTS } from "./fixtures";
import { EnvironmentPage } from "./pages/environmentPage";
import { ObjectPage } from "./pages/objectPage";
import { NavBar } from "./pages/navBar";
import type { Page } from "@playwright/test";

/** A mutation sent with the signed-in session's cookie and CSRF token, as the page's own forms send it. */
async function post(page: Page, baseURL: string, url: string, body: unknown): Promise<{ status: number; message: string }> {
  const session = (await (await page.request.get("/api/auth/session")).json()) as { csrfToken: string | null };
  const res = await page.request.post(url, {
    data: body,
    headers: { "x-csrf-token": session.csrfToken ?? "", origin: baseURL, accept: "application/json" },
  });
  const parsed = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  return { status: res.status(), message: parsed.error?.message ?? "" };
}

test.describe("an operator", () => {
  test("can pause, refresh and claim: the actions are on the production page", async ({ page }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    await expect(new NavBar(page).role("operator")).toBeVisible();
    await expect(prod.refreshNow).toBeVisible();
    await expect(page.getByRole("button", { name: /^Pause reconciliation/ })).toBeVisible();

    // Selecting the unowned worker drift offers to claim it; the form asks for owner, reason, expiry and return path.
    await prod.selectCheckbox("Deployment shop/worker").check();
    await page.getByRole("button", { name: /^Claim this drift/ }).click();
    const form = page.getByRole("form", { name: "Claim this drift in production" });
    await expect(form.getByRole("combobox", { name: "Owner" })).toBeVisible();
    await expect(form.getByRole("textbox", { name: "Reason (required)" })).toBeVisible();
    await expect(form.getByRole("radio", { name: "Revert to Git" })).toBeChecked();
    await expect(form.getByRole("button", { name: "Claim", exact: true })).toBeDisabled();
    // Leave the demo's story as it is: cancel rather than claim.
    await form.getByRole("button", { name: "Cancel" }).click();
    await expect(form).toHaveCount(0);
  });

  test("is offered to take ownership of staging's unattributed pause, or to resume it", async ({ page, capture }) => {
    const staging = new EnvironmentPage(page, "staging");
    await staging.open();
    const banner = staging.pauseBanners.filter({ hasText: "Unattributed pause" });
    await expect(banner).toContainText("Application/argocd/shop-staging");
    await expect(banner).toContainText("kubectl-patch");
    await expect(banner.getByRole("button", { name: "Take ownership…" })).toBeVisible();
    await expect(banner.getByRole("button", { name: "Resume reconciliation" })).toBeVisible();
    await capture(page, "environment-staging");
  });
});

test.describe("a viewer", () => {
  test.use({ role: "viewer" });

  test("reads production but is offered no pause, refresh or claim action", async ({ page, capture }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    await expect(new NavBar(page).user(ACCOUNTS.viewer.displayName)).toBeVisible();
    await expect(new NavBar(page).role("viewer")).toBeVisible();
    // Everything an on-call engineer reads is there …
    await expect(prod.driftRow("Deployment shop/api")).toContainText("Olivia (on call)");
    await expect(prod.driftRow("Deployment shop/worker")).toContainText("unowned");
    // … and nothing that changes anything.
    await expect(page.getByRole("button", { name: /Pause reconciliation/ })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Refresh now|Collecting/ })).toHaveCount(0);
    await expect(prod.driftTable.getByRole("checkbox")).toHaveCount(0);
    await expect(page.getByText(/claim them/)).toHaveCount(0);
    await capture(page, "environment-production-viewer");
  });

  test("sees both pauses without Resume or Take ownership buttons, and no Claim on unowned drift", async ({ page }) => {
    const testEnv = new EnvironmentPage(page, "test");
    await testEnv.open();
    await expect(testEnv.pauseBanners.first()).toContainText("Dan Weber");
    await expect(page.getByRole("button", { name: /Resume reconciliation|Take ownership/ })).toHaveCount(0);
    const staging = new EnvironmentPage(page, "staging");
    await staging.open();
    await expect(staging.pauseBanners.first()).toContainText("Unattributed pause");
    await expect(page.getByRole("button", { name: /Resume reconciliation|Take ownership/ })).toHaveCount(0);
    const obj = new ObjectPage(page);
    await obj.open("production", "apps/Deployment/shop/worker");
    await expect(obj.owner).toContainText("Unowned");
    await expect(page.getByRole("button", { name: /Claim/ })).toHaveCount(0);
  });

  test("is refused by the API when pausing or claiming anyway", async ({ page, server }) => {
    await page.goto("/");
    const pause = await post(page, server.baseURL, "/api/pauses", { environment: "production", reason: "viewer tries to pause", duration: "1h", confirm: "production" });
    expect(pause.status).toBe(403);
    expect(pause.message).toMatch(/operator role/);
    const drift = (await (await page.request.get("/api/environments/production/drift?owner=unowned")).json()) as { items: Array<{ id: string }> };
    expect(drift.items.length).toBe(1);
    const claim = await post(page, server.baseURL, "/api/claims", { driftItemIds: [drift.items[0]!.id], reason: "viewer tries to claim", duration: "1h", returnPath: "revert" });
    expect(claim.status).toBe(403);
    expect(claim.message).toMatch(/operator role/);
    // Nothing changed: production is not paused and the worker drift is still unowned.
    const after = (await (await page.request.get("/api/environments/production")).json()) as { pauses: unknown[]; drift: { unowned: number } };
    expect(after.pauses).toEqual([]);
    expect(after.drift.unowned).toBe(1);
  });
});
