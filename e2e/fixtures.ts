/**
 * Fixtures for every e2e spec: `import { test, expect } from "./fixtures.ts"`.
 *
 * - `server` (worker): the real one-origin server (apps/web/server/main.ts, what `npm start` runs) on a
 *   free port with a fresh data directory and a fresh database — a scratch PostgreSQL database when
 *   DATABASE_URL is set (`server.databaseUrl`, for tests that tamper with stored rows), else PGlite. The
 *   website is built first when stale, under the shared build lock (see helpers/server.ts). One server
 *   serves all specs of a worker: use `uniqueName()` for accounts and items.
 * - `baseURL`: the server's URL, so `page.goto("/search")` works.
 * - `api`: set-up over HTTP: `signUp`, `signInContext`, `createToken`, `registerKey`, `publish`,
 *   `registerKeyAndPublish`, `createOrg`, `call` (helpers/api.ts).
 * - `signedIn`: a fresh account whose session cookie is already in this test's browser context.
 * - `sql`: runs SQL on the server's database (PostgreSQL only: on PGlite, whose files the running server
 *   holds open, the test is skipped — and fails under CI, which always has PostgreSQL).
 *
 * `@rye/core` works in specs and helpers as is: Playwright's TypeScript transform compiles workspace
 * sources outside node_modules, and `.ts` extensions in imports resolve (checked by a11y/flows specs).
 */
import { test as base, expect } from "@playwright/test";
import pg from "pg";
import { RyeApi, type Session } from "./helpers/api.ts";
import { type RyeServer, startServer, tail } from "./helpers/server.ts";

export { expect };
export { itemSource, type Json, type Published, type Session, uniqueItemName, uniqueName } from "./helpers/api.ts";

type Sql = <T extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<T[]>;

export interface WorkerFixtures {
  server: RyeServer;
}

export interface TestFixtures {
  api: RyeApi;
  signedIn: Session;
  sql: Sql;
  /** Automatic: attaches the end of the server's log to a failed test's report. */
  serverLogOnFailure: void;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  server: [
    async ({}, use) => {
      const server = await startServer();
      try {
        await use(server);
      } finally {
        await server.stop();
      }
    },
    // next build (when stale) + first start (migrations, system bundle seed) on 2 shared cores.
    { scope: "worker", timeout: 300_000 },
  ],
  baseURL: async ({ server }, use) => use(server.baseURL),
  api: async ({ server }, use) => use(new RyeApi(server.baseURL)),
  signedIn: async ({ api, context }, use) => {
    const session = await api.signUp();
    await api.signInContext(context, session);
    await use(session);
  },
  sql: async ({ server }, use, testInfo) => {
    if (!server.databaseUrl) {
      const why = "needs PostgreSQL (DATABASE_URL): the running server holds the PGlite database open";
      if (process.env.CI) throw new Error(`${why}; CI must set DATABASE_URL`);
      testInfo.skip(true, why);
    }
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      await use(async (text, values) => (await client.query(text, values)).rows);
    } finally {
      await client.end();
    }
  },
  serverLogOnFailure: [
    async ({ server }, use, testInfo) => {
      await use();
      if (testInfo.status !== testInfo.expectedStatus) {
        await testInfo.attach("server-log", { body: tail(server.logFile, 80), contentType: "text/plain" });
      }
    },
    { auto: true },
  ],
});
