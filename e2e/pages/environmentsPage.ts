import { expect, type Locator, type Page } from "@playwright/test";

/** `/`: one card per environment in promotion order. */
export class EnvironmentsPage {
  readonly heading: Locator;
  readonly list: Locator;
  readonly cards: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Environments" });
    this.list = page.getByRole("list", { name: "Environments in promotion order" });
    this.cards = this.list.getByRole("article");
  }

  async open(): Promise<void> {
    await this.page.goto("/");
    await expect(this.heading).toBeVisible();
    await expect(this.cards.first()).toBeVisible();
  }

  /** Card names in the order shown. */
  async order(): Promise<string[]> {
    return (await this.cards.getByRole("heading", { level: 2 }).allInnerTexts()).map((t) => t.trim());
  }

  card(env: string): EnvironmentCard {
    return new EnvironmentCard(this.list.getByRole("article", { name: env, exact: true }));
  }
}

export class EnvironmentCard {
  readonly header: Locator;
  readonly pause: Locator;
  readonly alerts: Locator;
  readonly openLink: Locator;

  constructor(readonly root: Locator) {
    this.header = root.locator("header");
    // The pause notice is the only block that starts with "Paused" or "Unattributed pause".
    this.pause = root.locator("div").filter({ has: root.page().locator("strong", { hasText: /^(Paused|Unattributed pause)$/ }) });
    this.alerts = root.getByRole("list", { name: /^Open alerts for / });
    this.openLink = root.getByRole("link", { name: /^Open .* →$/ });
  }

  /** A status badge in the card header ("Stale", "Drifted", "Paused", …). */
  status(name: string): Locator {
    return this.header.getByText(name, { exact: true });
  }

  /** The value next to a row label ("Approved", "Applied", "Behind", "Drift", "Controller", "Collected"). */
  row(label: string): Locator {
    return this.root.locator("dl > div").filter({ has: this.root.page().getByRole("term").getByText(label, { exact: true }) }).getByRole("definition");
  }

  /** The short sha link of the approved or applied revision. */
  shaLink(label: "Approved" | "Applied"): Locator {
    return this.row(label).getByRole("link").first();
  }
}
