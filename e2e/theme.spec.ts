// Dark mode: the dashboard follows the system setting until the reader picks
// light or dark in the header; the pick is remembered and in place before the
// first paint of the next page (no flash of the other theme).
import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";

/** How bright a colour is (0 black … 255 white): computed colours may be oklch(), so a canvas turns them into pixels. */
async function brightness(page: Page, selector: string, property: "backgroundColor" | "color"): Promise<number> {
  return await page.evaluate(
    ([sel, prop]) => {
      const colour = getComputedStyle(document.querySelector(sel)!)[prop];
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      return (r! + g! + b!) / 3;
    },
    [selector, property] as const,
  );
}

/** The page's background, as the reader sees it: light or dark. */
async function background(page: Page): Promise<"light" | "dark"> {
  return (await brightness(page, "body", "backgroundColor")) > 128 ? "light" : "dark";
}

test.describe("theme", () => {
  test("follows the system setting, also while the page is open", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1, name: "Environments" })).toBeVisible();
    expect(await background(page)).toBe("light");
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => background(page)).toBe("dark");
    await expect(page.getByRole("combobox", { name: "Theme" })).toHaveValue("system");
  });

  test("a choice in the header wins over the system, is remembered, and is there before the first paint", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/");
    const theme = page.getByRole("combobox", { name: "Theme" });
    await theme.selectOption("dark");
    await expect.poll(() => background(page)).toBe("dark");

    // On the next load, record the theme at the moment <body> is inserted: before anything is painted.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.body) return;
        (window as unknown as { themeAtFirstBody: string | null }).themeAtFirstBody = document.documentElement.getAttribute("data-theme");
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto("/environments/production");
    await expect(page.getByRole("heading", { level: 1, name: "production" })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { themeAtFirstBody: string | null }).themeAtFirstBody)).toBe("dark");
    expect(await background(page)).toBe("dark");
    await expect(theme).toHaveValue("dark");

    // Light pinned on a dark system; then back to following the system.
    await page.emulateMedia({ colorScheme: "dark" });
    await theme.selectOption("light");
    await expect.poll(() => background(page)).toBe("light");
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { themeAtFirstBody: string | null }).themeAtFirstBody)).toBe("light");
    expect(await background(page)).toBe("light");
    await theme.selectOption("system");
    await expect.poll(() => background(page)).toBe("dark");
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { themeAtFirstBody: string | null }).themeAtFirstBody)).toBeNull();
    expect(await background(page)).toBe("dark");
  });

  test("the incident report prints light even in the dark theme", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/reports/incident?env=production");
    await expect(page.getByRole("heading", { level: 1, name: "Incident report: production" })).toBeVisible();
    expect(await background(page)).toBe("dark");
    await page.emulateMedia({ colorScheme: "dark", media: "print" });
    expect(await background(page)).toBe("light");
    expect(await brightness(page, "h1", "color"), "the heading is dark ink on paper").toBeLessThan(100);
  });
});
