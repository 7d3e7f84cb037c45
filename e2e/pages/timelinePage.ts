import { expect, type Download, type Locator, type Page } from "@playwright/test";

/** `/timeline`: one chronological stream with filters and exports. */
export class TimelinePage {
  readonly heading: Locator;
  readonly filters: Locator;
  readonly environment: Locator;
  readonly summary: Locator;
  readonly events: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1, name: "Timeline" });
    this.filters = page.getByRole("form", { name: "Filter the timeline" });
    this.environment = this.filters.getByRole("combobox", { name: "Environment" });
    this.summary = page.getByText(/^\d+ events? from /);
    // Each day is a region named after the day; events are its list items.
    this.events = page.getByRole("region").getByRole("listitem");
  }

  async open(query = ""): Promise<void> {
    await this.page.goto(`/timeline${query ? `?${query}` : ""}`);
    await expect(this.heading).toBeVisible();
  }

  quickRange(label: "1 h" | "6 h" | "24 h" | "7 d" | "30 d"): Locator {
    return this.filters.getByRole("group", { name: "Quick ranges" }).getByRole("button", { name: `Last ${label}` });
  }

  typeFilter(label: string): Locator {
    return this.filters.getByRole("checkbox", { name: label, exact: true });
  }

  exportLink(format: "CSV" | "JSON" | "Markdown (incident write-up)"): Locator {
    return this.filters.getByRole("link", { name: format, exact: true });
  }

  async download(format: "CSV" | "JSON" | "Markdown (incident write-up)"): Promise<Download> {
    const pending = this.page.waitForEvent("download");
    await this.exportLink(format).click();
    return await pending;
  }

  event(text: string | RegExp): Locator {
    return this.events.filter({ hasText: text });
  }
}
