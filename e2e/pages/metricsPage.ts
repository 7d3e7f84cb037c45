import { expect, type Locator, type Page } from "@playwright/test";

/** `/metrics`: delivery and drift charts, each a figure with a caption and an SVG picture. */
export class MetricsPage {
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Metrics" });
  }

  async open(): Promise<void> {
    await this.page.goto("/metrics");
    await expect(this.heading).toBeVisible();
  }

  chart(title: string): Locator {
    return this.page.getByRole("figure", { name: title });
  }

  /** The chart's picture: an SVG with role img and a text description. */
  picture(title: string): Locator {
    return this.chart(title).locator("svg[role=img]");
  }
}
