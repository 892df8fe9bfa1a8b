/**
 * Test set-up over the registry's public HTTP API (no database back doors): accounts, sessions,
 * tokens, author keys, signed publishes and organizations. What a spec then checks, it checks in the
 * browser.
 */
import { createHash, randomBytes } from "node:crypto";
import type { BrowserContext } from "@playwright/test";
import { buildSkillManifest, generateKeyPair, type ItemType, type KeyPair, type SkillFile, signItem, signSkillManifest } from "@rye/core";

// biome-ignore lint: tests read arbitrary JSON
export type Json = Record<string, any>;

export interface Session {
  username: string;
  password: string;
  email: string;
  userId: string;
  /** `rye_session=<value>` for a Cookie header. */
  cookie: string;
  csrf: string;
}

export interface Published {
  type: ItemType;
  /** namespace/category/name */
  id: string;
  version: string;
  content: string;
  key: KeyPair;
  /** The push response (item, version, attestation…). */
  response: Json;
  /** The item page of the website. */
  path: string;
}

export type Visibility = "public" | "unlisted" | "private";

/** A name no other test of this server uses: lowercase letters, digits, hyphens (2–39 characters). */
export function uniqueName(prefix = "u"): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`.toLowerCase();
}

/** An item name no other test of this server uses: snake_case, as item names must be. */
export function uniqueItemName(prefix = "item"): string {
  return `${prefix}_${randomBytes(4).toString("hex")}`;
}

/** The category of `namespace/category…/name`: the folder path between namespace and name. */
export function categoryOf(id: string): string {
  return id.split("/").slice(1, -1).join("/");
}

/** Minimal valid item sources of each type (docs/formats.md); the category comes from the id. */
export const itemSource = {
  knowledge(id: string, options: { version?: string; title?: string; body?: string; category?: string } = {}): string {
    const name = id.split("/").pop()!;
    return `---\nid: ${name}\ntitle: ${options.title ?? name}\nversion: ${options.version ?? "1.0.0"}\nentry_type: reference\ncategory: ${options.category ?? categoryOf(id)}\n---\n\n${options.body ?? `Body of ${name}.`}\n`;
  },
  directive(id: string, options: { version?: string; description?: string; category?: string; author?: string } = {}): string {
    const name = id.split("/").pop()!;
    return `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${options.version ?? "1.0.0"}">\n  <metadata>\n    <description>${options.description ?? `Do ${name}.`}</description>\n    <category>${options.category ?? categoryOf(id)}</category>\n    <author>${options.author ?? "e2e"}</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
  },
  tool(id: string, options: { version?: string; description?: string; category?: string } = {}): string {
    return `version: "${options.version ?? "1.0.0"}"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: ${options.category ?? categoryOf(id)}\ndescription: "${options.description ?? "Fetch a URL"}"\nconfig:\n  url: "{url}"\n`;
  },
};

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json | null,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body)}`);
  }
}

export class RyeApi {
  constructor(readonly baseURL: string) {}

  /** One API call; `session` sends the cookie and CSRF token, `token` a bearer token. */
  async call(method: string, path: string, options: { session?: Session; token?: string; json?: unknown; expect?: number } = {}): Promise<{ status: number; body: Json | null; headers: Headers }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.session) {
      headers.cookie = options.session.cookie;
      headers["x-csrf-token"] = options.session.csrf;
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.baseURL}${path}`, {
      method,
      headers,
      ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    });
    const text = await res.text();
    let body: Json | null = null;
    try {
      body = text ? (JSON.parse(text) as Json) : null;
    } catch {
      body = { text };
    }
    if (options.expect !== undefined && res.status !== options.expect) throw new ApiCallError(res.status, body, `${method} ${path}`);
    return { status: res.status, body, headers: res.headers };
  }

  /** `POST /v1/auth/signup`: a new local account, signed in. */
  async signUp(username = uniqueName("user"), password = `${username}-correct-horse-battery`): Promise<Session> {
    const email = `${username}@example.test`;
    const res = await fetch(`${this.baseURL}/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, email, password }),
    });
    const body = (await res.json()) as Json;
    if (res.status !== 201) throw new ApiCallError(res.status, body, "POST /v1/auth/signup");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("rye_session="));
    if (!cookie) throw new Error("sign-up set no rye_session cookie");
    return { username, password, email, userId: body.user.id, cookie: cookie.split(";")[0]!, csrf: body.csrf_token };
  }

  /** Puts the session's cookie into a browser context: its pages are then signed in as that user. */
  async signInContext(context: BrowserContext, session: Session): Promise<void> {
    const eq = session.cookie.indexOf("=");
    await context.addCookies([
      { name: session.cookie.slice(0, eq), value: session.cookie.slice(eq + 1), url: this.baseURL, httpOnly: true, sameSite: "Lax" },
    ]);
  }

  /** `POST /v1/tokens`: a personal token (the secret). */
  async createToken(session: Session, scopes: string[] = ["items:read", "items:write"], options: { name?: string; namespace?: string; expiresInDays?: number } = {}): Promise<string> {
    const { body } = await this.call("POST", "/v1/tokens", {
      session,
      json: {
        name: options.name ?? uniqueName("token"),
        scopes,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        ...(options.expiresInDays ? { expires_in_days: options.expiresInDays } : {}),
      },
      expect: 201,
    });
    const token = body!.token ?? body!.secret;
    if (typeof token !== "string") throw new Error(`POST /v1/tokens answered no token: ${JSON.stringify(body)}`);
    return token;
  }

  /** `POST /v1/me/keys`: registers (a new, or the given) author key of the token's user. */
  async registerKey(token: string, key?: KeyPair, label = "e2e"): Promise<KeyPair> {
    const pair = key ?? (await generateKeyPair());
    await this.call("POST", "/v1/me/keys", { token, json: { public_key: pair.publicKey.pem, label } }).then((r) => {
      if (r.status !== 201 && r.status !== 200) throw new ApiCallError(r.status, r.body, "POST /v1/me/keys");
    });
    return pair;
  }

  /** Signs `content` with `key` and publishes it with `POST /v1/push`. */
  async publish(token: string, item: { type: ItemType; id: string; content: string; version?: string; key: KeyPair; visibility?: Visibility; description?: string; changelog?: string; fileExtension?: string }): Promise<Published> {
    const version = item.version ?? "1.0.0";
    // Tools name their format by extension; itemSource.tool() writes YAML.
    const fileExtension = item.fileExtension ?? (item.type === "tool" ? ".yaml" : undefined);
    const signed = (await signItem(item.content, item.type, item.key, fileExtension ? { path: `file${fileExtension}` } : {})).content;
    const { body } = await this.call("POST", "/v1/push", {
      token,
      json: {
        item_type: item.type,
        item_id: item.id,
        content: signed,
        version,
        ...(item.changelog ? { changelog: item.changelog } : {}),
        ...(fileExtension ? { file_extension: fileExtension } : {}),
        metadata: { ...(item.visibility ? { visibility: item.visibility } : {}), ...(item.description ? { description: item.description } : {}) },
      },
      expect: 201,
    });
    return { type: item.type, id: item.id, version, content: signed, key: item.key, response: body!, path: `/${item.type}/${item.id}` };
  }

  /** Signs a skill's manifest with `key` and pushes the skill with `POST /v1/skills/push` (201: published). */
  async pushSkill(token: string, key: KeyPair, namespace: string, files: SkillFile[], visibility: Visibility = "public"): Promise<Json> {
    const manifest = await signSkillManifest(buildSkillManifest(files), key);
    const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    const json = {
      namespace,
      manifest,
      visibility,
      files: Object.fromEntries(files.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha256(f.bytes) }])),
    };
    return (await this.call("POST", "/v1/skills/push", { token, json, expect: 201 })).body!;
  }

  /**
   * The whole author path in one call: a new key registered for the token's user, then a signed push.
   * `id` defaults to `<namespace>/e2e/item_<random hex>`; `content` to a minimal item of that type.
   */
  async registerKeyAndPublish(token: string, item: { type?: ItemType; namespace: string; id?: string; version?: string; content?: string; visibility?: Visibility; description?: string; key?: KeyPair; fileExtension?: string }): Promise<Published> {
    const type = item.type ?? "knowledge";
    const id = item.id ?? `${item.namespace}/e2e/${uniqueItemName()}`;
    const key = await this.registerKey(token, item.key);
    const content = item.content ?? itemSource[type](id, { version: item.version ?? "1.0.0" });
    return this.publish(token, { type, id, content, version: item.version, key, visibility: item.visibility, description: item.description, fileExtension: item.fileExtension });
  }

  /** `POST /v1/orgs` by a signed-in user (who becomes its owner). */
  async createOrg(session: Session, name = uniqueName("org"), displayName?: string): Promise<string> {
    await this.call("POST", "/v1/orgs", { session, json: { name, ...(displayName ? { display_name: displayName } : {}) }, expect: 201 });
    return name;
  }
}
