import type { Locator, Page } from "@playwright/test";

/** The bar on every page: section links and who is signed in. */
export class NavBar {
  readonly nav: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole("navigation", { name: "Main" });
  }

  user(displayName: string): Locator {
    return this.nav.getByText(displayName);
  }

  role(role: string): Locator {
    return this.nav.getByText(role, { exact: true });
  }
}
