import { expect, type Locator, type Page } from "@playwright/test";

export class SignInPage {
  readonly heading: Locator;
  readonly form: Locator;
  readonly username: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Sign in to Driftwatch" });
    this.form = page.getByRole("form", { name: "Sign in with a Driftwatch account" });
    this.username = this.form.getByLabel("Username");
    this.password = this.form.getByLabel("Password");
    this.submit = this.form.getByRole("button", { name: "Sign in" });
    // Next.js adds an empty route announcer with role alert; the form's error is the one with words.
    this.error = page.getByRole("alert").filter({ hasText: /\S/ });
  }

  async open(next?: string): Promise<void> {
    await this.page.goto(next ? `/signin?next=${encodeURIComponent(next)}` : "/signin");
    await expect(this.heading).toBeVisible();
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.username.fill(username);
    await this.password.fill(password);
    await this.submit.click();
  }
}
