import { expect, type Locator, type Page } from "@playwright/test";

/** `/environments/[env]/objects/...key`: owner, changes with attribution, side-by-side diff, history. */
export class ObjectPage {
  readonly heading: Locator;
  readonly breadcrumb: Locator;
  readonly fromGit: Locator;
  readonly owner: Locator;
  readonly changes: Locator;
  readonly diff: Locator;
  readonly history: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { level: 1 });
    this.breadcrumb = page.getByRole("navigation", { name: "Breadcrumb" });
    this.fromGit = page.getByRole("region", { name: "From Git" });
    this.owner = page.getByRole("region", { name: "Owner" });
    this.changes = page.getByRole("region", { name: "What changed, and who changed it" }).getByRole("table");
    this.diff = page.getByRole("table", { name: /on the left, .* on the right/ });
    this.history = page.getByRole("region", { name: "Drift history" }).getByRole("table");
  }

  /** `key` is group/Kind/namespace/name with `_` for the core group, as the app links it. */
  async open(env: string, key: string): Promise<void> {
    await this.page.goto(`/environments/${encodeURIComponent(env)}/objects/${key}`);
    await expect(this.heading).toBeVisible();
  }

  /** The "What changed" row of one field, by its display path (e.g. "spec.replicas"). */
  change(field: string): Locator {
    // The cell may add "(added)" right after the path; the path must not continue (".x" or "[...]").
    const starts = new RegExp(`^${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w.[])`);
    return this.changes.getByRole("row").filter({ has: this.page.getByRole("cell", { name: starts }) });
  }

  /** Diff rows that differ between Git and live (they carry a screen-reader "Git:" or "Live:" prefix). */
  changedDiffRows(): Locator {
    return this.diff.getByRole("row").filter({ hasText: /Git: |Live: / });
  }

  historyRows(): Locator {
    return this.history.getByRole("row").filter({ has: this.page.getByRole("cell") });
  }
}
