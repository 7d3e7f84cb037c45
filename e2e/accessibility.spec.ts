// Every page and state, scanned with axe-core in the light and the dark theme
// (the system setting, which the dashboard follows unless the reader chose):
// zero serious or critical WCAG 2.1 A/AA violations, colour contrast included.
import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";
import { AccessibilityScan } from "./support/axe";
import { EnvironmentPage } from "./pages/environmentPage";
import { EnvironmentsPage } from "./pages/environmentsPage";

const THEMES = ["light", "dark"] as const;

/** Opens a page and waits until its first queries answered, so the scan sees what a reader sees. */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
}

/**
 * Waits until React has attached its handlers to `selector` (it then keeps its
 * props on the element): a click before that submits the server's plain HTML
 * form instead of running the page's own code.
 */
async function hydrated(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return !!el && Object.keys(el).some((k) => k.startsWith("__reactProps"));
  }, selector);
}

/** Opens every <details> (charts' numbers, collapsed sections), so their tables are scanned too. */
async function expandDetails(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const d of Array.from(document.querySelectorAll("details"))) d.open = true;
  });
}

function report(scan: AccessibilityScan): string {
  return `${scan.violations.length} serious or critical violations in ${scan.scanned.length} states:\n${scan.violations.join("\n")}`;
}

for (const theme of THEMES) {
  test.describe(`accessible in the ${theme} theme`, () => {
    test.use({ colorScheme: theme });
    // Each test scans many pages; axe takes a few seconds on the long ones (the object diff).
    test.describe.configure({ timeout: 180_000 });

    test.describe("signed out", () => {
      test.use({ role: null });
      test("the sign-in page, and its error after a wrong password", async ({ page }) => {
        const scan = new AccessibilityScan(page);
        await open(page, "/signin");
        expect(await page.evaluate(() => getComputedStyle(document.body).colorScheme), "the theme followed the system").toBe(theme);
        await scan.scan("sign-in");
        await hydrated(page, "form");
        await page.getByLabel("Username").fill("viewer");
        await page.getByLabel("Password").fill("not-the-password");
        await page.getByRole("button", { name: "Sign in" }).click();
        await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toBeVisible();
        await scan.scan("sign-in error");
        expect(scan.violations, report(scan)).toEqual([]);
      });
    });

    test.describe("viewer", () => {
      test.use({ role: "viewer" });
      test("environments", async ({ page }) => {
        const scan = new AccessibilityScan(page);
        await new EnvironmentsPage(page).open();
        await scan.scan("environments");
        expect(scan.violations, report(scan)).toEqual([]);
      });
      test("commit", async ({ page }) => {
        const scan = new AccessibilityScan(page);
        const envs = new EnvironmentsPage(page);
        await envs.open();
        // Test is one application, so its card names the approved commit (production's applications each have their own).
        const sha = (await envs.card("test").shaLink("Approved").innerText()).trim();
        await open(page, `/commits/${sha}`);
        await scan.scan("commit");
        expect(scan.violations, report(scan)).toEqual([]);
      });
      for (const [state, url] of [
        ["production drift", "/environments/production"],
        ["staging (unattributed pause)", "/environments/staging"],
        ["object with a diff", "/environments/production/objects/apps/Deployment/shop/api"],
        ["lineage", "/lineage"],
        ["timeline", "/timeline"],
        ["compare", "/compare?from=staging&to=production"],
        ["metrics, with the charts' tables open", "/metrics"],
        ["audit", "/audit"],
        ["incident report", "/reports/incident?env=production"],
      ] as const) {
        test(state, async ({ page }) => {
          const scan = new AccessibilityScan(page);
          await open(page, url);
          await expandDetails(page);
          await scan.scan(state);
          expect(scan.violations, report(scan)).toEqual([]);
        });
      }
    });

    test.describe("operator", () => {
      test("each form open: claim, pause, take ownership, resume, refresh", async ({ page }) => {
        const scan = new AccessibilityScan(page);
        const production = new EnvironmentPage(page, "production");
        await production.open();
        await scan.scan("production as operator");
        await production.selectCheckbox("Deployment shop/worker").check();
        await page.getByRole("button", { name: /^Claim this drift/ }).click();
        await expect(page.getByRole("form", { name: /^Claim this drift in production/ })).toBeVisible();
        await scan.scan("claim form");
        await page.getByRole("button", { name: "Cancel" }).click();
        await page.getByRole("button", { name: "Pause reconciliation…" }).click();
        await expect(page.getByRole("form", { name: "Pause reconciliation of production" })).toBeVisible();
        await expect(page.getByText(/At most \d+ h in this environment/)).toBeVisible();
        await scan.scan("pause form");
        await page.getByRole("button", { name: "Cancel" }).click();

        const staging = new EnvironmentPage(page, "staging");
        await staging.open();
        await page.getByRole("button", { name: "Take ownership…" }).click();
        await expect(page.getByRole("form", { name: "Take ownership of this pause" })).toBeVisible();
        await scan.scan("take-ownership form");

        const testEnv = new EnvironmentPage(page, "test");
        await testEnv.open();
        await expect(page.getByRole("button", { name: "Resume reconciliation" })).toBeVisible();
        await scan.scan("paused environment with resume");
        await testEnv.refreshNow.click();
        await scan.scan("refresh running");
        expect(scan.violations, report(scan)).toEqual([]);
      });
    });

    test.describe("empty, loading and error states", () => {
      test("an environment without drift, a page loading, a failing API and a missing page", async ({ page }) => {
        const scan = new AccessibilityScan(page);
        // Empty: test has no drift.
        await new EnvironmentPage(page, "test").open();
        await expect(page.getByRole("region", { name: "Drift", exact: true })).toContainText(/0 open/);
        await scan.scan("no drift");
        await open(page, "/audit?action=no-such-action");
        await scan.scan("audit with nothing matching");

        // Loading: a new comparison is held until the scan is done.
        await open(page, "/compare?from=staging&to=production");
        let release: () => void = () => undefined;
        const held = new Promise<void>((r) => (release = r));
        await page.route("**/api/compare?**", async (route) => {
          await held;
          await route.continue().catch(() => undefined);
        });
        await hydrated(page, "form");
        await page.getByRole("radio", { name: "Git vs Git" }).check();
        await page.getByRole("button", { name: "Compare", exact: true }).click();
        await expect(page.getByRole("status").filter({ hasText: "Comparing…" })).toBeVisible();
        await scan.scan("compare loading");
        release();
        await page.unroute("**/api/compare?**");

        // Errors: a failing API with nothing to show, a failing refresh with data on screen, a missing page, a bad filter.
        await page.route("**/api/compare?**", (route) => route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: { code: "internal", message: "Internal server error" } }) }));
        await page.getByLabel("Kind (optional)").fill("Service");
        await page.getByRole("button", { name: "Compare", exact: true }).click();
        await expect(page.getByRole("alert").filter({ hasText: "Could not load this page's data." })).toBeVisible();
        await scan.scan("compare failing");
        await page.unroute("**/api/compare?**");

        // Loading a new window of the timeline (app/loading.tsx, shown while a page renders, is the same component).
        await open(page, "/timeline?environment=production");
        let releaseTimeline: () => void = () => undefined;
        const heldTimeline = new Promise<void>((r) => (releaseTimeline = r));
        await page.route("**/api/timeline?**", async (route) => {
          await heldTimeline;
          await route.continue().catch(() => undefined);
        });
        await hydrated(page, "form[aria-label='Filter the timeline']");
        await page.getByRole("button", { name: "Last 1 h" }).click();
        await expect(page.getByRole("status").filter({ hasText: "Loading the timeline…" })).toBeVisible();
        await scan.scan("timeline loading");
        releaseTimeline();
        await page.unroute("**/api/timeline?**");

        await open(page, "/");
        await page.route("**/api/environments", (route) => route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "Database unreachable" } }) }));
        await expect(page.getByRole("status").filter({ hasText: /Refreshing failed/ })).toBeVisible({ timeout: 20_000 });
        await scan.scan("environments refresh failing");
        await page.unroute("**/api/environments");

        await page.goto("/environments/no-such-environment");
        await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
        await scan.scan("not found");
        await page.goto("/timeline?from=not-a-time");
        await expect(page.getByRole("alert").filter({ hasText: "Could not load this page's data." })).toBeVisible();
        await scan.scan("timeline with a bad filter");
        expect(scan.violations, report(scan)).toEqual([]);
      });
    });
  });
}
