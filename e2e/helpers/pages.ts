/** Waits that make a page "finished" before it is measured (axe) or photographed. */
import { expect, type Page } from "@playwright/test";

/** Streamed sections (Suspense) have replaced their skeletons: nothing is marked aria-busy any more. */
export async function settled(page: Page): Promise<void> {
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

/** The item page's in-browser signature verification has reached a verdict (its rows change colour meanwhile). */
export async function verificationDone(page: Page): Promise<void> {
  await expect(page.getByRole("region", { name: "Signature verification" }).getByRole("status")).not.toHaveText(/Verifying/, { timeout: 20_000 });
}
