import { test, expect } from "./fixtures";
import { ComparePage } from "./pages/comparePage";

test.describe("compare environments", () => {
  test("staging against production: what runs differently, object by object and field by field", async ({ page, capture }) => {
    const compare = new ComparePage(page);
    await compare.open();
    // The first question is answered by default: the last two environments of the chain.
    await expect(compare.from).toHaveValue("staging");
    await expect(compare.to).toHaveValue("production");
    await expect(compare.mode("live vs live")).toBeChecked();
    await compare.compare.click();
    await expect(page).toHaveURL(/from=staging&to=production/);

    // Both environments discover their applications (no repository of their own): no one revision is either's (the one
    // each stores is its first application's); the Applications table names what each application runs.
    await expect(compare.summary).toContainText(/staging\s*Each application runs its own commit/);
    await expect(compare.summary).toContainText(/production\s*Each application runs its own commit/);
    // Only in staging: its four child Applications. Only in production: Flux's GitRepository and eight Kustomizations,
    // and the infrastructure (ingress-nginx's HelmRepository, HelmRelease, namespace and the release's Deployment,
    // Service and ServiceAccount; the shop's quota).
    await expect(compare.totals).toContainText(/\d+ differ · 4 only in staging · 16 only in production · \d+ identical/);

    // Why does it work in staging? api 1.8.0 with CHECKOUT_RETRIES there, 1.7.0 scaled to 6 by hand here.
    const api = compare.object("Deployment shop/api");
    const row = (field: string) => api.getByRole("row").filter({ hasText: field });
    await expect(row("spec.template.spec.containers[name=api].image")).toContainText("registry.example.com/shop/api:1.8.0");
    await expect(row("spec.template.spec.containers[name=api].image")).toContainText("registry.example.com/shop/api:1.7.0");
    await expect(row("spec.replicas")).toContainText(/3\s*6/);
    await expect(row("CHECKOUT_RETRIES")).toContainText("absent");
    await expect(compare.object("Deployment shop/worker").getByRole("row").filter({ hasText: "ORDERS_BATCH_SIZE" })).toBeVisible();

    // Secrets differ, but their values never reach the page.
    const secret = compare.object("Secret shop/api-credentials");
    await expect(secret).toContainText("2 fields differ");
    await expect(secret.getByRole("row").filter({ hasText: "data.PAYMENT_API_KEY" })).toContainText("(hidden)");
    await capture(page, "compare-staging-production");
  });

  test("Git against Git compares what each environment is supposed to run", async ({ page }) => {
    const compare = new ComparePage(page);
    await compare.open("from=staging&to=production&mode=desired");
    await expect(compare.mode("Git vs Git")).toBeChecked();
    await expect(compare.summary).toContainText("Each application is compared at its own commit");
    await expect(compare.totals).toBeVisible();
    // Production's Git is at its applied revision (1.7.0), staging's at 1.8.0 …
    const image = compare.object("Deployment shop/api").getByRole("row").filter({ hasText: "spec.template.spec.containers[name=api].image" });
    await expect(image).toContainText("registry.example.com/shop/api:1.8.0");
    await expect(image).toContainText("registry.example.com/shop/api:1.7.0");
    // … and the hand-made worker env var is in no Git, so it is no difference here.
    await expect(compare.object("Deployment shop/worker").getByRole("row").filter({ hasText: "ORDERS_BATCH_SIZE" })).toHaveCount(0);
  });
});
