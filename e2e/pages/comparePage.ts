import { expect, type Locator, type Page } from "@playwright/test";

/** `/compare`: what differs between two environments, object by object. */
export class ComparePage {
  readonly heading: Locator;
  readonly from: Locator;
  readonly to: Locator;
  readonly compare: Locator;
  readonly summary: Locator;
  readonly totals: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Compare environments" });
    this.from = page.getByRole("combobox", { name: "From", exact: true });
    this.to = page.getByRole("combobox", { name: "To", exact: true });
    this.compare = page.getByRole("button", { name: "Compare", exact: true });
    this.summary = page.getByRole("region", { name: "Summary" });
    this.totals = page.getByText(/differ · \d+ only in /);
  }

  async open(query = ""): Promise<void> {
    await this.page.goto(`/compare${query ? `?${query}` : ""}`);
    await expect(this.heading).toBeVisible();
  }

  mode(label: "live vs live" | "Git vs Git"): Locator {
    return this.page.getByRole("radio", { name: label });
  }

  /** One compared object (a disclosure whose summary names it, e.g. "Deployment shop/api"). */
  object(name: string): Locator {
    return this.page.getByRole("listitem").filter({ has: this.page.locator("summary", { hasText: name }) });
  }
}
