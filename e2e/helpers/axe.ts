/** axe-core checks with readable failure output: rule, impact, help link, and each offending node. */
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "@playwright/test";

type Results = Awaited<ReturnType<AxeBuilder["analyze"]>>;
type Violation = Results["violations"][number];

export const BLOCKING_IMPACTS = new Set(["serious", "critical"]);

export function formatViolations(violations: Violation[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 8)
        .map((n) => `    - ${n.target.join(" ")}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}\n      html: ${n.html.slice(0, 200)}`)
        .join("\n");
      const more = v.nodes.length > 8 ? `\n    … and ${v.nodes.length - 8} more` : "";
      return `[${v.impact}] ${v.id}: ${v.help}\n  ${v.helpUrl}\n${nodes}${more}`;
    })
    .join("\n\n");
}

/** The serious and critical violations on the page as it is now (all of axe's rules: WCAG 2.x A/AA and best practices). */
export async function blockingViolations(page: Page): Promise<Violation[]> {
  // Next streams a dynamic page's metadata: right after a navigation or refresh the <title> may still be
  // on its way. Judge the page once it has arrived (a page that never gets one still fails below).
  await page.waitForFunction(() => document.title.trim() !== "", undefined, { timeout: 5_000 }).catch(() => undefined);
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => BLOCKING_IMPACTS.has(v.impact ?? ""));
}
