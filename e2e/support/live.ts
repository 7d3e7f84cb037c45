// Waiting for a page to be ready now that it keeps a change stream open
// (GET /api/live): "networkidle" never comes while a stream is open. The
// status element components/live/live-updates.tsx renders says where the
// stream is; it exists once React has hydrated the page.
import type { Page } from "@playwright/test";

/** Until the page's scripts run and its change stream is live (or, signed out, known to be refused). */
export async function untilLive(page: Page, opts: { timeout?: number; signedOut?: boolean } = {}): Promise<void> {
  const states = opts.signedOut ? ["live", "signed-out"] : ["live"];
  await page.locator(states.map((s) => `[data-live-state="${s}"]`).join(", ")).first().waitFor({ state: "attached", timeout: opts.timeout ?? 30_000 });
}

/** Until nothing on the page shows a loading placeholder, then a moment for the last answers to render. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll(".animate-pulse").length === 0, undefined, { timeout: 5_000 }).catch(() => undefined);
  await page.waitForTimeout(300);
}
