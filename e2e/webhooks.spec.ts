/**
 * The webhooks page (/settings/webhooks): an owner adds a webhook from the settings navigation and copies its secret;
 * a publish in the namespace is delivered to a real receiver, signed, and appears in the delivery log; a delivery
 * the receiver refused is redelivered from the page and then succeeds.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../apps/api/src/services/webhooks/signature.ts";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";
import { expect, test } from "./fixtures.ts";

test("an owner adds a webhook, sees a signed delivery of a publish, and redelivers a refused one", async ({ page, context, api }) => {
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  let refuse = true;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(refuse ? 503 : 200).end(refuse ? "busy" : "ok");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/rye`;
  try {
    const owner = await api.signUp();
    const org = (await api.createOrg(owner)).toLowerCase();
    await api.signInContext(context, owner);
    await page.goto("/settings");
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Webhooks" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await page.getByRole("navigation", { name: "Namespaces" }).getByRole("link", { name: org }).click();
    await expect(page.getByRole("heading", { name: `Webhooks of ${org}` })).toBeVisible();

    await page.getByLabel("Payload URL").fill(hookUrl);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = (await page.getByLabel("Signing secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    const hook = page.getByRole("listitem", { name: `Webhook ${hookUrl}` });
    await expect(hook).toContainText("None yet.");
    const violations = await blockingViolations(page);
    expect(violations, formatViolations(violations)).toEqual([]);

    // The receiver refuses the first delivery (and its retries) while `refuse` holds.
    const token = await api.createToken(owner);
    await api.registerKeyAndPublish(token, { namespace: org });
    await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const first = received[0]!;
    expect(first.headers["x-rye-event"]).toBe("publish");
    expect(verifyWebhookSignature(secret, first.body, first.headers["x-rye-signature"] as string)).toBe(true);

    await page.reload();
    const row = hook.getByRole("row", { name: /^Delivery / }).first();
    await expect(row).toContainText("publish");
    await expect(row).toContainText(/retrying|failed/);
    await expect(row).toContainText("answered 503: busy");

    refuse = false;
    const before = received.length;
    await row.getByRole("button", { name: /^Redeliver publish delivery/ }).click();
    await expect.poll(() => received.slice(before).some((r) => JSON.parse(r.body).event === "publish" && r.headers["x-rye-delivery"] !== first.headers["x-rye-delivery"]), { timeout: 20_000 }).toBe(true);
    await expect
      .poll(async () => {
        await page.reload();
        return hook.getByRole("row", { name: /^Delivery / }).filter({ hasText: "(redelivery)" }).first().textContent();
      }, { timeout: 20_000 })
      .toMatch(/delivered \(200/);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
});
