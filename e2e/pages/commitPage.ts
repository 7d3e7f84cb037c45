import { expect, type Locator, type Page } from "@playwright/test";

/** `/commits/[sha]`: per environment, is it live, since when, through which applied revision. */
export class CommitPage {
  readonly heading: Locator;
  readonly where: Locator;
  readonly chain: Locator;
  readonly chainPicture: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1 });
    this.where = page.getByRole("region", { name: "Where is it live?" });
    this.chain = page.getByRole("region", { name: "Promotion chain" });
    this.chainPicture = this.chain.getByRole("img", { name: /^Promotion chain:/ });
  }

  async open(sha: string): Promise<void> {
    await this.page.goto(`/commits/${sha}`);
    await expect(this.heading).toBeVisible();
  }

  /** One environment's card in "Where is it live?". */
  environment(env: string): Locator {
    return this.where.getByRole("listitem").filter({ has: this.page.getByRole("heading", { level: 3, name: env, exact: true }) });
  }

  /** The card of one application of an environment of many ("production · flux-system/shop-api"). */
  application(env: string, app: string): Locator {
    return this.where.getByRole("listitem").filter({ has: this.page.getByRole("heading", { level: 3, name: `${env} · ${app}`, exact: true }) });
  }

  /** Every card of an environment, whether it has one application or many. */
  cardsOf(env: string): Locator {
    return this.where.getByRole("listitem").filter({ has: this.page.getByRole("heading", { level: 3, name: new RegExp(`^${env}( · |$)`) }) });
  }
}
