/**
 * Screenshots of the main pages — home, search, an item page, publish, settings, device — in light and
 * dark, desktop and phone widths, into test-results/screenshots/<page>-<scheme>-<width>.png (not
 * committed): a reviewer's quick look at the site after a change. Each page must render without a
 * server error; what the pages do is checked by the other specs.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { RyeApi, type Published, type Session, uniqueItemName } from "./helpers/api.ts";
import { settled, verificationDone } from "./helpers/pages.ts";
import { repoRoot } from "./helpers/server.ts";
import { expect, test } from "./fixtures.ts";

const dir = join(repoRoot, "test-results/screenshots");

interface Data {
  author: Session;
  item: Published;
}
let data: Data | undefined;

test.beforeAll(async ({ server }) => {
  mkdirSync(dir, { recursive: true });
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const name = uniqueItemName("deploy_checklist");
  const item = await api.registerKeyAndPublish(token, {
    type: "directive",
    namespace: author.username,
    id: `${author.username}/ops/${name}`,
    content: `# ${name}\n\nRelease a service safely.\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Walk through the deploy checklist before a release.</description>\n    <category>ops</category>\n    <author>${author.username}</author>\n  </metadata>\n  <inputs>\n    <input name="service" type="string" required="true">The service to deploy</input>\n  </inputs>\n  <process>\n    <step name="check">Run the tests of {input:service}.</step>\n  </process>\n</directive>\n\`\`\`\n`,
  });
  // A few more items so that search and home have something to list.
  for (const type of ["knowledge", "tool"] as const) await api.registerKeyAndPublish(token, { type, namespace: author.username });
  data = { author, item };
});

const pages: { name: string; path: (d: Data) => string; signedIn?: boolean; ready?: (page: Page) => Promise<void> }[] = [
  { name: "home", path: () => "/" },
  { name: "search", path: (d) => `/search?q=${encodeURIComponent(d.author.username)}` },
  { name: "item", path: (d) => d.item.path, ready: verificationDone },
  { name: "publish", path: () => "/publish", signedIn: true },
  { name: "settings", path: () => "/settings", signedIn: true },
  { name: "device", path: () => "/device", signedIn: true },
];

const widths = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

for (const p of pages) {
  test(`screenshots: ${p.name}`, async ({ page, context, api }) => {
    const d = data!;
    if (p.signedIn) await api.signInContext(context, d.author);
    for (const colorScheme of ["light", "dark"] as const) {
      for (const w of widths) {
        await page.setViewportSize(w.viewport);
        await page.emulateMedia({ colorScheme });
        const res = await page.goto(p.path(d));
        expect(res?.status(), `${p.path(d)} answers`).toBeLessThan(400);
        await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
        await settled(page);
        await p.ready?.(page);
        await page.screenshot({ path: join(dir, `${p.name}-${colorScheme}-${w.name}.png`), fullPage: true });
      }
    }
  });
}
