import { expect, type Locator, type Page } from "@playwright/test";
import { untilLive } from "../support/live";

/** `/environments/[env]`: status, pause, alerts, controller, drift table, rollback guidance. */
export class EnvironmentPage {
  readonly heading: Locator;
  readonly header: Locator;
  readonly pauseBanners: Locator;
  readonly alerts: Locator;
  readonly revisions: Locator;
  readonly controller: Locator;
  readonly conditions: Locator;
  readonly driftSummary: Locator;
  readonly driftFilters: Locator;
  readonly driftTable: Locator;
  readonly rollback: Locator;
  readonly refreshNow: Locator;
  readonly claimHint: Locator;
  readonly pauseHint: Locator;

  constructor(
    readonly page: Page,
    readonly env: string,
  ) {
    this.heading = page.getByRole("heading", { level: 1, name: env, exact: true });
    this.header = page.locator("header").filter({ has: this.heading });
    this.pauseBanners = page.getByRole("status").filter({ hasText: /pause/i });
    this.alerts = page.getByRole("region", { name: "Open alerts" });
    this.revisions = page.getByRole("region", { name: "Revisions" });
    this.controller = page.getByRole("region", { name: "Controller" });
    // One entry per condition, whether the panel lists them or tabulates them.
    this.conditions = this.controller.getByRole("row").or(this.controller.getByRole("listitem"));
    const drift = page.getByRole("region", { name: "Drift", exact: true });
    this.driftSummary = drift.getByText(/\d+ open, \d+ unowned/);
    this.driftFilters = page.getByRole("search", { name: "Filter drift" });
    this.driftTable = page.getByRole("table", { name: /^Drift items/ });
    this.rollback = page.getByRole("region", { name: "Rollback guidance" });
    this.refreshNow = page.getByRole("button", { name: /Refresh now|Collecting…/ });
    this.claimHint = page.getByText(/Select drift items to claim them|Claim \d+ selected/);
    this.pauseHint = page.getByText("Pause reconciliation:");
  }

  static path(env: string): string {
    return `/environments/${encodeURIComponent(env)}`;
  }

  async open(query = ""): Promise<void> {
    await this.page.goto(EnvironmentPage.path(this.env) + (query ? `?${query}` : ""));
    // The server's HTML is on screen before React attaches its handlers: a filter chosen earlier changes the
    // native select but not the URL. Once the page's scripts have loaded and its change stream is open, it is live.
    await untilLive(this.page);
    await expect(this.heading).toBeVisible();
  }

  /** The controller condition of one object, e.g. condition("GitRepository/flux-system/shop-production", "Ready=False"). */
  condition(object: string, typeEqualsStatus: string): Locator {
    return this.conditions.filter({ hasText: object }).filter({ hasText: typeEqualsStatus });
  }

  status(name: string): Locator {
    return this.header.getByText(name, { exact: true });
  }

  /** The drift table row of one object, by the link text the table shows ("Deployment shop/api"). */
  driftRow(object: string): Locator {
    return this.driftTable.getByRole("row").filter({ has: this.page.getByRole("link", { name: object, exact: true }) });
  }

  objectLink(object: string): Locator {
    return this.driftTable.getByRole("link", { name: object, exact: true });
  }

  selectCheckbox(object: string): Locator {
    return this.driftTable.getByRole("checkbox", { name: `Select ${object}` });
  }

  filter(label: "Type" | "Kind" | "Namespace" | "Owner" | "Changed by" | "Status"): Locator {
    return this.driftFilters.getByRole("combobox", { name: label, exact: true });
  }

  /** Rollback targets: one list item per earlier applied revision. */
  rollbackTargets(): Locator {
    return this.rollback.getByRole("listitem");
  }
}
