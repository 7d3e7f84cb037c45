// The on-call journey without the mouse: from an alert to the drifted object
// to a claim on it, with page.keyboard only (navigation by URL happens once,
// to open the dashboard), checking at every step that the focused control
// shows the focus ring. The claim is released afterwards so the demo's story
// (production's worker drift is unowned) stays as the other specs expect it.
import { test, expect } from "./fixtures";
import { untilLive } from "./support/live";
import type { Page } from "@playwright/test";

interface Focused {
  tag: string;
  role: string | null;
  name: string;
  focusVisible: boolean;
  outline: string;
}

async function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: "BODY", role: null, name: "", focusVisible: false, outline: "none" };
    const cs = getComputedStyle(el);
    return {
      tag: el.tagName,
      role: el.getAttribute("role"),
      name: (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 80),
      focusVisible: el.matches(":focus-visible"),
      outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`,
    };
  });
}

/** The focused element shows a ring a person can see: :focus-visible applies and draws a solid outline of 2 px or more. */
async function expectVisibleFocus(page: Page, step: string): Promise<Focused> {
  const f = await focused(page);
  expect(f.focusVisible, `${step}: ${f.tag} "${f.name}" is focused but not :focus-visible`).toBe(true);
  const [style, width] = f.outline.split(" ");
  expect(style, `${step}: ${f.tag} "${f.name}" has outline ${f.outline}`).toBe("solid");
  expect(parseFloat(width ?? "0"), `${step}: outline ${f.outline}`).toBeGreaterThanOrEqual(2);
  return f;
}

/** Tab until `match` is focused (at most `max` presses); every stop on the way must show its focus too. */
async function tabTo(page: Page, step: string, match: (f: Focused) => boolean, max = 80): Promise<Focused> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const f = await focused(page);
    if (f.tag !== "BODY") await expectVisibleFocus(page, `${step} (tab stop ${i + 1})`);
    if (match(f)) return f;
  }
  throw new Error(`${step}: not reached in ${max} Tab presses`);
}

async function releaseClaims(page: Page, baseURL: string, driftItemId: string): Promise<void> {
  const session = (await (await page.request.get("/api/auth/session")).json()) as { csrfToken: string | null };
  const list = (await (await page.request.get(`/api/claims?driftItemId=${driftItemId}&status=active`)).json()) as { claims: Array<{ id: string }> };
  for (const c of list.claims) {
    await page.request.post(`/api/claims/${c.id}/release`, { data: { reason: "e2e keyboard journey: leave the demo's story as it was" }, headers: { "x-csrf-token": session.csrfToken ?? "", origin: baseURL } });
  }
}

test.describe("keyboard", () => {
  test.setTimeout(120_000);

  test("the on-call journey — alert, object, claim — with the keyboard alone, focus visible at every step", async ({ page, server, capture }) => {
    await page.goto("/");
    await untilLive(page);
    let claimedItem: string | null = null;

    try {
      // 1. `/` opens the global search from anywhere on the page; the unowned-drift alert is one of its hits.
      const box = page.getByRole("combobox", { name: /Search environments, objects, commits, people and alerts/ });
      await expect(box).toBeVisible();
      await page.keyboard.press("/");
      await expect(box).toBeFocused();
      await expectVisibleFocus(page, "search box");
      await page.keyboard.type("no owner");
      const list = page.getByRole("listbox", { name: "Search results" });
      const alertHit = list.getByRole("option").filter({ hasText: /production: \d+ drifted objects? with no owner/ });
      await expect(alertHit).toBeVisible();
      // Arrow keys move the active option (aria-activedescendant) until the alert is active; Enter opens it.
      for (let i = 0; i < 20 && (await alertHit.getAttribute("aria-selected")) !== "true"; i++) await page.keyboard.press("ArrowDown");
      await expect(alertHit).toHaveAttribute("aria-selected", "true");
      await expect(box).toHaveAttribute("aria-activedescendant", (await alertHit.getAttribute("id"))!);
      await capture(page, "keyboard-search-alert");
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(/\/environments\/production$/);
      await expect(page.getByRole("heading", { level: 1, name: "production", exact: true })).toBeVisible();
      await untilLive(page);

      // 2. The drift table is one tab stop; the arrow keys move between rows and Enter opens the object.
      const row = await tabTo(page, "to the drift table", (f) => f.tag === "TR");
      expect(row.name).toMatch(/^(Modified|Missing|Extra) /);
      let current = row;
      for (let i = 0; i < 30 && !current.name.includes("Deployment shop/worker"); i++) {
        await page.keyboard.press("ArrowDown");
        current = await expectVisibleFocus(page, "moving down the drift table");
      }
      expect(current.name).toBe("Modified Deployment shop/worker");
      await capture(page, "keyboard-drift-row");
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(/\/environments\/production\/objects\/apps\/Deployment\/shop\/worker$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Deployment shop/worker");
      await untilLive(page);
      claimedItem = await page.evaluate(async () => {
        const res = await fetch("/api/environments/production/drift?status=open");
        const body = (await res.json()) as { items: Array<{ id: string; key: string }> };
        return body.items.find((d) => d.key === "apps/Deployment/shop/worker")?.id ?? null;
      });

      // 3. Claim it: the button opens the form with focus inside; fields, then the Claim button, by Tab and typing.
      await tabTo(page, "to the claim button", (f) => f.tag === "BUTTON" && /^Claim this drift/.test(f.name));
      await page.keyboard.press("Enter");
      const form = page.getByRole("form", { name: "Claim this drift in production" });
      await expect(form.getByRole("combobox", { name: "Owner" })).toBeFocused();
      await expectVisibleFocus(page, "the claim form's first field");
      await tabTo(page, "to the reason", (f) => f.tag === "TEXTAREA", 5);
      await page.keyboard.type("Keyboard-only on-call check: holding the worker's env var until the fix ships");
      await tabTo(page, "to the Claim button", (f) => f.tag === "BUTTON" && f.name === "Claim", 10);
      await capture(page, "keyboard-claim-form");
      await page.keyboard.press("Enter");
      await expect(page.getByText(/Claimed by/)).toContainText("Keyboard-only on-call check");
      await expect(form).toHaveCount(0);
    } finally {
      if (claimedItem) await releaseClaims(page, server.baseURL, claimedItem);
    }
  });

  test("Escape closes the search list, then leaves the box; `/` typed in a field stays in the field", async ({ page }) => {
    await page.goto("/timeline");
    await untilLive(page);
    const box = page.getByRole("combobox", { name: /Search environments/ });
    // The box appears once the session is known (signed-out pages have none).
    await expect(box).toBeVisible();
    await page.keyboard.press("/");
    await expect(box).toBeFocused();
    await page.keyboard.type("prod");
    await expect(box).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("option").first()).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(box).toHaveAttribute("aria-expanded", "false");
    await expect(box).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(box).not.toBeFocused();
    await expect(box).toHaveValue("");
    // In a text field, `/` is a character, not the shortcut.
    await page.keyboard.press("/");
    await expect(box).toBeFocused();
    await page.keyboard.type("a/b");
    await expect(box).toHaveValue("a/b");
  });
});
