/**
 * Accessibility: axe-core on the main pages (home, search with results, an item page, the settings),
 * in the light and the dark colour scheme. No serious or critical violation is allowed; failures list
 * each rule, its help link and the offending elements.
 */
import { RyeApi, type Published, type Session, uniqueItemName } from "./helpers/api.ts";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";
import { settled, verificationDone } from "./helpers/pages.ts";
import { expect, test } from "./fixtures.ts";

interface Data {
  author: Session;
  item: Published;
  marker: string;
}

let data: Data | undefined;

// One author and one published item for all pages of this file (created over the API).
test.beforeAll(async ({ server }) => {
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const marker = `axolotl${uniqueItemName("a").replace(/_/g, "")}`;
  const name = uniqueItemName("care_guide");
  const item = await api.registerKeyAndPublish(token, {
    type: "knowledge",
    namespace: author.username,
    id: `${author.username}/guides/${name}`,
    content: `---\nid: ${name}\ntitle: Care guide ${marker}\nversion: 1.0.0\nentry_type: reference\ncategory: guides\ntags: [pets, water]\n---\n\n# Care guide\n\nKeep the ${marker} in cool water.\n\n| Temperature | Advice |\n|---|---|\n| 16 °C | ideal |\n\n\`\`\`bash\necho "feed twice a week"\n\`\`\`\n`,
  });
  data = { author, item, marker };
});

const pages: { name: string; path: (d: Data) => string; signedIn?: boolean; ready?: (page: import("@playwright/test").Page) => Promise<void> }[] = [
  { name: "home", path: () => "/" },
  { name: "search", path: (d) => `/search?q=${d.marker}` },
  {
    name: "item",
    path: (d) => d.item.path,
    // Wait until the in-browser verification has finished: its rows change colour as checks complete.
    ready: verificationDone,
  },
  { name: "settings", path: () => "/settings", signedIn: true },
];

for (const colorScheme of ["light", "dark"] as const) {
  for (const p of pages) {
    test(`${p.name} page has no serious or critical axe violations (${colorScheme})`, async ({ page, context, api }) => {
      const d = data!;
      if (p.signedIn) await api.signInContext(context, d.author);
      await page.emulateMedia({ colorScheme });
      const res = await page.goto(p.path(d));
      expect(res?.status(), `${p.path(d)} answers`).toBeLessThan(400);
      await expect(page.getByRole("main")).toBeVisible();
      await settled(page);
      await p.ready?.(page);
      const violations = await blockingViolations(page);
      expect(violations.length, `serious/critical axe violations on ${p.path(d)} (${colorScheme}):\n\n${formatViolations(violations)}\n`).toBe(0);
    });
  }
}
