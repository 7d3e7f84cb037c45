import { expect, type Locator, type Page } from "@playwright/test";

/** `/audit`: the append-only audit log. */
export class AuditPage {
  readonly heading: Locator;
  readonly table: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Audit log" });
    this.table = page.getByRole("table", { name: "Audit events, newest first" });
  }

  async open(query = ""): Promise<void> {
    await this.page.goto(`/audit${query ? `?${query}` : ""}`);
    await expect(this.heading).toBeVisible();
  }

  rows(text: string | RegExp): Locator {
    return this.table.getByRole("row").filter({ hasText: text });
  }
}
