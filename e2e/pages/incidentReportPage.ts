import { expect, type Locator, type Page } from "@playwright/test";

/** `/reports/incident`: one environment's window as a printable page. */
export class IncidentReportPage {
  readonly heading: Locator;
  readonly form: Locator;
  readonly environment: Locator;
  readonly from: Locator;
  readonly to: Locator;
  readonly summary: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: /^Incident report: / });
    this.form = page.getByRole("form", { name: "Choose the report's environment and window" });
    this.environment = this.form.getByRole("combobox", { name: "Environment" });
    this.from = this.form.getByLabel("From (UTC)");
    this.to = this.form.getByLabel("To (UTC)");
    this.summary = page.getByLabel("Summary");
  }

  async open(query = ""): Promise<void> {
    await this.page.goto(`/reports/incident${query ? `?${query}` : ""}`);
    await expect(this.heading).toBeVisible();
  }

  section(name: string): Locator {
    return this.page.getByRole("region", { name });
  }
}
