import { test, expect } from "./fixtures";
import { LineagePage } from "./pages/lineagePage";
import { CommitPage } from "./pages/commitPage";

test.describe("lineage", () => {
  test("a reviewer takes the approved commit of production's api application, finds it by short sha and sees where it is live", async ({ page, capture }) => {
    // Production is many applications, each with its own approved revision: the api's is the 1.8.0 promotion.
    await page.goto("/environments/production/applications/flux-system%2Fshop-api");
    const approved = page.getByRole("term").filter({ hasText: /^Approved$/ }).locator("xpath=following-sibling::dd[1]");
    const shortSha = (await approved.innerText()).trim().slice(0, 7);
    expect(shortSha).toMatch(/^[0-9a-f]{7}$/);

    const lineage = new LineagePage(page);
    await lineage.open();
    // The commit's row carries a badge per environment: live in test and staging, pending in production.
    const row = lineage.commitRow(shortSha);
    await expect(row).toContainText("promote to production: api: 1.8.0 adds checkout retries with backoff");
    // One column per application: live in test (through a later commit), pending in production's api application only.
    await expect(row.getByRole("cell").filter({ hasText: /^live/ })).toHaveCount(1);
    await expect(row.getByRole("cell").filter({ hasText: /^pending/ })).toHaveCount(1);
    await capture(page, "lineage");

    await lineage.findCommit(shortSha);
    await expect(page).toHaveURL(new RegExp(`/commits/${shortSha}$`));
    const commit = new CommitPage(page);
    await expect(commit.heading).toHaveText("promote to production: api: 1.8.0 adds checkout retries with backoff");

    const testEnv = commit.environment("test");
    await expect(testEnv).toContainText(/live in test since/);
    await expect(testEnv).toContainText(/through applied revision [0-9a-f]{7}: a later commit that contains this one\./);
    // Staging's app-of-apps: the root and every child Application run a revision that contains it.
    await expect(commit.cardsOf("staging")).toHaveCount(5);
    await expect(commit.application("staging", "argocd/staging-api")).toContainText(/live in staging · argocd\/staging-api since/);
    // In production the commit concerns the api's application alone (it changes apps/production/api), and is pending there.
    await expect(commit.cardsOf("production")).toHaveCount(1);
    const production = commit.application("production", "flux-system/shop-api");
    await expect(production).toContainText(/pending in production · flux-system\/shop-api: source AuthenticationFailed for \d+h/);
    await expect(production).toContainText(/Approved but not applied\. production runs [0-9a-f]{7}\./);
    await expect(production).toContainText(/Blocked since /);

    await expect(commit.chainPicture).toBeVisible();
    await expect(commit.chainPicture).toHaveAttribute("aria-label", /staging to production: not yet/);
    await expect(commit.chain).toContainText("staging → production: not reached yet");
    await capture(page, "commit-production-approved");
  });

  test("the applied revision of each environment is shown in promotion order", async ({ page }) => {
    const lineage = new LineagePage(page);
    await lineage.open();
    const items = lineage.appliedPerEnvironment.getByRole("listitem");
    await expect(items).toHaveCount(3);
    await expect(items.nth(0)).toContainText(/^test [0-9a-f]{7}/);
    // Staging and production discover their applications: each application's column says what it runs.
    await expect(items.nth(1)).toContainText("staging per application");
    await expect(items.nth(2)).toContainText("production per application");
  });

  test("a commit not yet promoted to production says so, and an invalid sha is refused with a message", async ({ page }) => {
    const lineage = new LineagePage(page);
    await lineage.open();
    const webRow = lineage.page.getByRole("row").filter({ hasText: /^(?!.*promote).*web: 2\.5\.0 shows delivery estimates/ });
    const sha = (await webRow.getByRole("link").first().innerText()).trim();
    await lineage.findCommit(sha);
    const commit = new CommitPage(page);
    await expect(commit.heading).toHaveText("web: 2.5.0 shows delivery estimates");
    await expect(commit.environment("test")).toContainText(/live in test since/);
    // Web 2.5.0 changes envs/test only: none of the eight production applications that follow the repository includes it
    // yet (the ninth, ingress-nginx's HelmRelease, follows its chart).
    await expect(commit.cardsOf("production")).toHaveCount(8);
    await expect(commit.application("production", "flux-system/shop-web")).toContainText("not in production · flux-system/shop-web yet");

    await lineage.open();
    await lineage.findCommit("xyz");
    await expect(lineage.lookup.getByRole("alert")).toHaveText("Enter at least 4 hexadecimal digits of a commit sha.");
    await expect(page).toHaveURL(/\/lineage$/);
  });
});
