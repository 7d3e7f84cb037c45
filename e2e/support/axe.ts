// axe-core scans for the accessibility spec: WCAG 2.1 A and AA rules, and
// only what axe rates serious or critical fails (colour contrast is serious).
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

const WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Each serious or critical violation on the page as one readable line: rule, what it means, where, why. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(WCAG_AA).analyze();
  const lines: string[] = [];
  for (const v of result.violations) {
    if (v.impact !== "serious" && v.impact !== "critical") continue;
    for (const node of v.nodes.slice(0, 5)) {
      const why = (node.failureSummary ?? "").replace(/\s+/g, " ").replace(/^Fix (any|all) of the following: /, "");
      lines.push(`${v.id} (${v.impact}): ${v.help} — ${node.target.join(" ")} — ${why}`);
    }
    if (v.nodes.length > 5) lines.push(`${v.id}: … and ${v.nodes.length - 5} more`);
  }
  return lines;
}

/**
 * Collects the violations of several pages and states, so one failing test
 * names every problem of its journey instead of the first one.
 */
export class AccessibilityScan {
  private readonly found: string[] = [];
  readonly scanned: string[] = [];

  constructor(private readonly page: Page) {}

  async scan(state: string): Promise<void> {
    this.scanned.push(state);
    for (const line of await seriousViolations(this.page)) this.found.push(`${state}: ${line}`);
  }

  get violations(): readonly string[] {
    return this.found;
  }
}
