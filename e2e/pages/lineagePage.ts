import { expect, type Locator, type Page } from "@playwright/test";

/** `/lineage`: commits with a badge per environment, and a lookup by sha. */
export class LineagePage {
  readonly heading: Locator;
  readonly appliedPerEnvironment: Locator;
  readonly lookup: Locator;
  readonly shaInput: Locator;
  readonly find: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Lineage" });
    this.appliedPerEnvironment = page.getByRole("list", { name: "Applied revision per environment, in promotion order" });
    this.lookup = page.getByRole("search", { name: "Find a commit" });
    this.shaInput = this.lookup.getByLabel(/Full or short sha/);
    this.find = this.lookup.getByRole("button", { name: "Find" });
  }

  async open(): Promise<void> {
    await this.page.goto("/lineage");
    await expect(this.heading).toBeVisible();
  }

  async findCommit(sha: string): Promise<void> {
    await this.shaInput.fill(sha);
    await this.find.click();
  }

  /** The table row of one commit, by its short sha link. */
  commitRow(shortSha: string): Locator {
    return this.page.getByRole("row").filter({ has: this.page.getByRole("link", { name: shortSha, exact: true }) });
  }
}
