import { test, expect } from "./fixtures";
import { EnvironmentsPage } from "./pages/environmentsPage";
import { EnvironmentPage } from "./pages/environmentPage";
import { ObjectPage } from "./pages/objectPage";

const OLIVIA_REASON = "Absorbing the checkout retry storm by hand until api 1.8.0 (retries with backoff) reaches production";

test.describe("production drift", () => {
  test("the on-call engineer opens production from the environments page and sees both manual changes", async ({ page, capture }) => {
    const envs = new EnvironmentsPage(page);
    await envs.open();
    await envs.card("production").openLink.click();
    const prod = new EnvironmentPage(page, "production");
    await expect(prod.heading).toBeVisible();
    await expect(page).toHaveURL(/\/environments\/production$/);
    await expect(prod.status("Stale")).toBeVisible();
    await expect(prod.status("Drifted")).toBeVisible();
    await expect(prod.driftSummary).toHaveText(/2 open, 1 unowned, 2 by people/);

    // The api scale: spec.replicas by manager `kubectl`, claimed by Olivia until later today.
    const api = prod.driftRow("Deployment shop/api");
    await expect(api).toContainText("Modified");
    await expect(api).toContainText("spec.replicas");
    await expect(api).toContainText("kubectl");
    await expect(api).toContainText("human");
    await expect(api).toContainText("Olivia (on call)");
    await expect(api).toContainText(/revert · until in \d+h/);
    await expect(api.getByText("Olivia (on call)")).toHaveAttribute("title", OLIVIA_REASON);

    // The worker env var added with `kubectl edit`: nobody owns it.
    const worker = prod.driftRow("Deployment shop/worker");
    await expect(worker).toContainText("Modified");
    await expect(worker).toContainText("spec.template.spec.containers[name=worker].env[name=ORDERS_BATCH_SIZE]");
    await expect(worker).toContainText("kubectl-edit");
    await expect(worker).toContainText("unowned");
    await expect(worker).not.toContainText("Olivia");

    // Production is many applications: each row names the one whose Git declares the object, and the list narrows to one.
    await expect(api.getByRole("link", { name: "flux-system/shop-api" })).toBeVisible();
    await expect(worker.getByRole("link", { name: "flux-system/shop-worker" })).toBeVisible();
    await page.getByRole("combobox", { name: "Application" }).selectOption("flux-system/shop-worker");
    await expect(page).toHaveURL(/application=flux-system%2Fshop-worker/);
    await expect(prod.driftRow("Deployment shop/api")).toHaveCount(0);
    await expect(prod.driftRow("Deployment shop/worker")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(prod.driftRow("Deployment shop/api")).toBeVisible();
    await capture(page, "environment-production");
  });

  test("production's controller conditions say why it is stale, and open alerts name it", async ({ page }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    // One GitRepository feeds all eight of production's Kustomizations; its credential is the one rotated away.
    const failing = prod.condition("GitRepository/flux-system/flux-system", "Ready=False");
    await expect(failing).toContainText("AuthenticationFailed");
    await expect(failing).toContainText("authentication required");
    await expect(prod.alerts).toContainText("production: 1 drifted object with no owner");
    await expect(prod.alerts).toContainText("production: GitRepository/flux-system/flux-system is failing (AuthenticationFailed)");
    await expect(page.getByText(/^1 application has not applied the approved revision, the oldest for \d+h \d+m \(threshold 30m\)$/)).toBeVisible();
  });

  test("filtering to unowned drift leaves only the kubectl-edit change", async ({ page }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    await prod.filter("Owner").selectOption("unowned");
    await expect(page).toHaveURL(/owner=unowned/);
    await expect(prod.driftRow("Deployment shop/worker")).toBeVisible();
    await expect(prod.driftRow("Deployment shop/api")).toHaveCount(0);
    await expect(prod.driftTable.getByRole("row")).toHaveCount(2); // header + one item
  });

  test("the api drift's object page shows who scaled it, the claim and a side-by-side diff", async ({ page, capture }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    await prod.objectLink("Deployment shop/api").click();
    const obj = new ObjectPage(page);
    await expect(obj.heading).toHaveText("Deployment shop/api");
    await expect(page).toHaveURL(/\/environments\/production\/objects\/apps\/Deployment\/shop\/api$/);

    // Attribution of the one changed field: manager kubectl through the scale subresource, a person.
    const replicas = obj.change("spec.replicas");
    await expect(replicas).toHaveCount(1);
    await expect(replicas).toContainText("kubectl");
    await expect(replicas).toContainText("Update · /scale · human");
    await expect(replicas.getByRole("cell").nth(2)).toHaveText("6");

    // The claim: owner, reason, return path, expiry and incident link.
    await expect(obj.owner).toContainText("Claimed by Olivia (on call)");
    await expect(obj.owner).toContainText(OLIVIA_REASON);
    await expect(obj.owner).toContainText("Return path: revert (let Git win)");
    await expect(obj.owner).toContainText(/Until /);
    await expect(obj.owner.getByRole("link", { name: "Incident" })).toHaveAttribute("href", "https://status.shop.example/incidents/2026-checkout-errors");

    // Git on the left, live on the right; the changed line carries its manager in the margin.
    await expect(obj.diff.getByRole("columnheader", { name: /^Git \(/ })).toBeVisible();
    await expect(obj.diff.getByRole("columnheader", { name: "Live", exact: true })).toBeVisible();
    const changed = obj.changedDiffRows();
    await expect(changed.filter({ hasText: "replicas: 6" })).toHaveCount(1);
    await expect(changed.filter({ hasText: "replicas: 6" })).toContainText("kubectl /scale");
    // The api's own application folder in production's Flux layout.
    await expect(obj.fromGit).toContainText("apps/production/api/api.yaml");
    await capture(page, "object-production-api");
  });

  test("a manual edit that nobody fights over is not labelled a fight", async ({ page }) => {
    const prod = new EnvironmentPage(page, "production");
    await prod.open();
    await expect(prod.driftRow("Deployment shop/worker")).toBeVisible();
    await expect(prod.driftTable.getByText("fight", { exact: true })).toHaveCount(0);
  });

  test("the api scale's attribution says what is known about when it was made", async ({ page }) => {
    // Kubernetes records no time for a new manager of /scale (the apiserver's
    // ScaleHandler.ToParent keeps the parent's times), so the page says so and
    // falls back to when Driftwatch first saw the drift.
    const obj = new ObjectPage(page);
    await obj.open("production", "apps/Deployment/shop/api");
    const when = obj.change("spec.replicas").getByRole("cell").nth(4);
    await expect(when).toContainText("not recorded by Kubernetes");
    await expect(when).toContainText("first seen by Driftwatch");
    await expect(when.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d{2}-\d{2}T/);
  });

  test("the worker drift's object page shows the unowned kubectl-edit env var", async ({ page, capture }) => {
    const obj = new ObjectPage(page);
    await obj.open("production", "apps/Deployment/shop/worker");
    await expect(obj.heading).toHaveText("Deployment shop/worker");
    await expect(obj.owner).toContainText("Unowned: nobody has claimed this divergence");
    const env = obj.change("spec.template.spec.containers[name=worker].env[name=ORDERS_BATCH_SIZE]");
    await expect(env).toContainText("kubectl-edit");
    await expect(env).toContainText("Update · human");
    await expect(env).toContainText("ORDERS_BATCH_SIZE");
    await expect(obj.changedDiffRows().filter({ hasText: "ORDERS_BATCH_SIZE" })).not.toHaveCount(0);
    await expect(obj.diff).toContainText("kubectl-edit");
    await capture(page, "object-production-worker");
  });

  test("the worker diff highlights only the added env var, not the unchanged one after it", async ({ page }) => {
    const obj = new ObjectPage(page);
    await obj.open("production", "apps/Deployment/shop/worker");
    await expect(obj.changedDiffRows().filter({ hasText: "ORDERS_BATCH_SIZE" })).not.toHaveCount(0);
    // QUEUE=orders is the same in Git and live; only its line number moved.
    await expect(obj.changedDiffRows().filter({ hasText: "QUEUE" })).toHaveCount(0);
    await expect(obj.changedDiffRows().filter({ hasText: "value: orders" })).toHaveCount(0);
  });

  test("rollback guidance lists earlier applied revisions with the exact git revert range", async ({ page }) => {
    // Test is the environment with one application and a repository of its own; production's applications each
    // follow the whole repository (see the applications spec).
    const testEnv = new EnvironmentPage(page, "test");
    await testEnv.open();
    await expect(testEnv.rollback).toContainText("Driftwatch never pushes");
    const targets = testEnv.rollbackTargets();
    expect(await targets.count()).toBeGreaterThanOrEqual(3);
    const first = targets.first();
    // The newest earlier revision: api 1.8.0, replaced by web 2.5.0 before Dan paused test.
    await expect(first).toContainText("api: 1.8.0 adds checkout retries with backoff");
    await expect(first).toContainText(/applied .+ – .+/);
    await expect(first.getByText(/^git revert --no-edit [0-9a-f]{40}\.\.[0-9a-f]{40}$/)).toBeVisible();
    await expect(first).toContainText(/Reverts \d+ commits?\./);
    await expect(first.getByText(/^git restore --source=[0-9a-f]{40} -- envs\/test && git commit/)).toBeVisible();
  });
});
