import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";
import { settled, untilLive } from "./support/live";

const PAGES: Array<[string, string]> = [
  ["environments", "/"],
  ["production drift", "/environments/production"],
  ["object", "/environments/production/objects/apps/Deployment/shop/api"],
  ["lineage", "/lineage"],
  ["timeline", "/timeline"],
  ["compare", "/compare?from=staging&to=production"],
  ["metrics", "/metrics"],
  ["audit", "/audit"],
];

/** How far the page is wider than the window: a reader has to scroll sideways to see it all. */
async function overflow(page: Page): Promise<{ px: number; widest: string }> {
  return await page.evaluate(() => {
    const doc = document.documentElement;
    let widest = "";
    let right = doc.clientWidth;
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const r = el.getBoundingClientRect();
      if (r.right > right + 1) {
        right = r.right;
        widest = `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 60)}"`;
      }
    }
    return { px: doc.scrollWidth - doc.clientWidth, widest };
  });
}

test.describe("readable at 1280 px without scrolling sideways", () => {
  for (const [name, url] of PAGES) {
    test(name, async ({ page }) => {
      await page.goto(url);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await untilLive(page, { timeout: 5_000 }).catch(() => undefined);
      await settled(page);
      const o = await overflow(page);
      expect(o.px, `page is ${o.px}px wider than the window; widest: ${o.widest}`).toBeLessThanOrEqual(0);
    });
  }
});

test.describe("readable on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const [name, url] of PAGES.slice(0, 2)) {
    test(name, async ({ page, capture }) => {
      await page.goto(url);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await untilLive(page, { timeout: 5_000 }).catch(() => undefined);
      await settled(page);
      const o = await overflow(page);
      await capture(page, `phone-${name.replace(/\s+/g, "-")}`);
      expect(o.px, `page is ${o.px}px wider than the phone; widest: ${o.widest}`).toBeLessThanOrEqual(0);
    });
  }
});
