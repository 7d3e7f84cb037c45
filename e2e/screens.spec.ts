// The main pages on a phone (390 px) and a desktop, in the light and the dark
// theme: nothing makes the page body scroll sideways (wide tables scroll in
// their own box), controls are big enough to tap, and a screenshot of each is
// kept in e2e/screenshots/ for people to look at. The desktop environments
// page in the light theme is also the README's picture (docs/environments.png).
import path from "node:path";
import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";

const PAGES: Array<{ name: string; url: string; ready: (page: Page) => Promise<void> }> = [
  { name: "environments", url: "/", ready: (p) => expect(p.getByRole("article", { name: "production", exact: true })).toBeVisible() },
  { name: "drift", url: "/environments/production", ready: (p) => expect(p.getByRole("table", { name: /^Drift items/ })).toBeVisible() },
  { name: "object", url: "/environments/production/objects/apps/Deployment/shop/api", ready: (p) => expect(p.getByRole("table", { name: /on the left, .* on the right/ })).toBeVisible() },
  { name: "timeline", url: "/timeline?environment=production", ready: (p) => expect(p.getByText(/^\d+ events? from /)).toBeVisible() },
];

const SCREENS = [
  { name: "phone", viewport: { width: 390, height: 844 } },
  { name: "desktop", viewport: { width: 1280, height: 900 } },
] as const;

/** The page's scroll width, and the element reaching furthest right when it is wider than the window (to name the culprit). */
async function widthOf(page: Page): Promise<{ scrollWidth: number; clientWidth: number; widest: string }> {
  return await page.evaluate(() => {
    const doc = document.documentElement;
    let widest = "";
    let right = doc.clientWidth;
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const r = el.getBoundingClientRect();
      if (r.right > right + 1) {
        right = r.right;
        widest = `${el.tagName.toLowerCase()}.${(el.getAttribute("class") ?? "").split(" ").slice(0, 4).join(".")} "${(el.textContent ?? "").trim().slice(0, 50)}"`;
      }
    }
    return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, widest };
  });
}

/**
 * Buttons, selects, text fields and the nav bar's links smaller than 24 × 24 px
 * (WCAG 2.2's minimum target size); links inside running text are exempt.
 */
async function smallTargets(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const targets = Array.from(document.querySelectorAll<HTMLElement>("button, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden]), textarea, nav a, summary"));
    return targets
      .filter((el) => el.offsetParent !== null && !el.closest(".sr-only"))
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 24 || r.height < 24)
      .map(({ el, r }) => `${el.tagName.toLowerCase()} "${(el.textContent ?? el.getAttribute("aria-label") ?? "").trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
  });
}

for (const screen of SCREENS) {
  for (const theme of ["light", "dark"] as const) {
    test.describe(`${screen.name}, ${theme} theme`, () => {
      test.use({ viewport: screen.viewport, colorScheme: theme });
      for (const p of PAGES) {
        test(`${p.name}: no sideways scrolling, tappable controls, screenshot`, async ({ page, capture }, testInfo) => {
          await page.goto(p.url);
          await p.ready(page);
          await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
          const shot = `${screen.name}-${theme}-${p.name}`;
          await capture(page, shot);
          if (screen.name === "desktop" && theme === "light" && p.name === "environments") {
            // The README's picture: the window as a visitor first sees it, not the whole page.
            await page.screenshot({ path: path.join(testInfo.config.rootDir, "..", "docs", "environments.png") });
          }
          const w = await widthOf(page);
          expect(w.scrollWidth, `the page is ${w.scrollWidth - w.clientWidth}px wider than the window; widest: ${w.widest}`).toBeLessThanOrEqual(screen.viewport.width);
          if (screen.name === "phone") expect(await smallTargets(page), "controls smaller than 24 × 24 px").toEqual([]);
        });
      }
    });
  }
}
