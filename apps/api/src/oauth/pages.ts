/**
 * Minimal server-rendered pages of the authorize endpoint (the website will replace the consent
 * page): no scripts, escaped values, no framing, no caching.
 */
import type { Context } from "hono";
import type { AuthorizationRequest } from "./authorization-request.ts";
import { formatScope, SCOPE_DESCRIPTIONS } from "./scopes.ts";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

const STYLE = "body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.5rem}code{background:#f3f3f3;padding:0 .2rem}";

export function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · rye</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function secureHeaders(c: Context): void {
  c.header("Cache-Control", "no-store");
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
}

/** A full page with the pages' security headers. */
export function htmlPage(c: Context, title: string, body: string, status: 200 | 400 | 401 | 403 | 404 | 429 = 200): Response {
  secureHeaders(c);
  return c.html(layout(title, body), status);
}

export function errorPage(c: Context, status: 400 | 401 | 403 | 500, message: string): Response {
  secureHeaders(c);
  return c.html(layout("Sign-in error", `<h1>Cannot continue</h1><p>${escapeHtml(message)}</p>`), status);
}

export interface ConsentUser {
  username: string;
  csrfToken: string;
  /** Third-party clients: the organizations whose private items the person can read (and so the client would). */
  organizations?: string[];
  /** Third-party clients: the person's organizations that forbid remote MCP clients (the client sees none of theirs). */
  withheldOrganizations?: string[];
}

export function consentPage(c: Context, request: AuthorizationRequest, user: ConsentUser, action: string): Response {
  secureHeaders(c);
  const hidden: Record<string, string> = {
    csrf_token: user.csrfToken,
    response_type: "code",
    client_id: request.client.id,
    redirect_uri: request.redirectUri,
    state: request.state,
    scope: formatScope(request.scope),
    resource: request.resource,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
  };
  const inputs = Object.entries(hidden).map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`).join("");
  const scopes = request.scope.map((s) => `<li><code>${escapeHtml(s)}</code> — ${escapeHtml(SCOPE_DESCRIPTIONS[s as keyof typeof SCOPE_DESCRIPTIONS] ?? s)}</li>`).join("");
  const target = new URL(request.redirectUri);
  const name = escapeHtml(request.client.name);
  const form = `<form method="post" action="${escapeHtml(action)}">${inputs}<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></form>`;
  if (request.client.kind === "first-party") {
    return c.html(
      layout(
        "Authorize",
        `<h1>Authorize ${name}?</h1>
<p>Signed in as <strong>${escapeHtml(user.username)}</strong>. <strong>${name}</strong> asks to act on your behalf with:</p>
<ul>${scopes}</ul>
<p>It will receive access at <code>${escapeHtml(target.host)}</code> on this computer. Approve only if you just started this sign-in yourself.</p>
${form}`,
      ),
    );
  }
  const identity =
    request.client.kind === "metadata-document"
      ? `It is identified by its URL <code>${escapeHtml(request.client.id)}</code> (served by <strong>${escapeHtml(new URL(request.client.id).host)}</strong>); the name “${name}” is what that document says.`
      : `It registered itself with this registry under the name “${name}”, which nobody has verified.`;
  const orgs = user.organizations ?? [];
  const visible = `your own private items${orgs.length > 0 ? ` and those of the organization${orgs.length > 1 ? "s" : ""} ${orgs.map((o) => `<strong>${escapeHtml(o)}</strong>`).join(", ")}` : ""}`;
  const withheld = user.withheldOrganizations ?? [];
  const withheldNote =
    withheld.length > 0
      ? ` Private items of ${withheld.map((o) => `<strong>${escapeHtml(o)}</strong>`).join(", ")} stay hidden from it: ${withheld.length > 1 ? "these organizations forbid" : "this organization forbids"} remote MCP clients.`
      : "";
  return c.html(
    layout(
      "Authorize a third-party application",
      `<h1>Authorize ${name}?</h1>
<p><strong>This is a third-party application</strong>, not made or checked by this registry. ${identity}</p>
<p>Signed in as <strong>${escapeHtml(user.username)}</strong>. It asks to use this registry's MCP server (<code>${escapeHtml(request.resource)}</code>) on your behalf with:</p>
<ul>${scopes}</ul>
<p>It will be able to read public items, ${visible}. It cannot publish, change or delete anything.${withheldNote}</p>
<p>After you decide you are sent to <code>${escapeHtml(target.protocol === "https:" || target.protocol === "http:" ? target.host : target.protocol)}</code>. Approve only if you just started this sign-in from that application.</p>
${form}`,
    ),
  );
}
