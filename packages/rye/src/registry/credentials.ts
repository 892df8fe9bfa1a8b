/**
 * Credentials per registry in `$USER_SPACE/.ai/auth/credentials.json` (file 0600, directory 0700),
 * written atomically. `$RYE_TOKEN` (CI) overrides the store for every registry.
 */
import { chmod, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../fs/atomic.ts";
import { userAiDir } from "../spaces/paths.ts";

const credentialSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string().optional(),
  /** Epoch milliseconds; absent for personal access tokens that the CLI cannot refresh. */
  expires_at: z.number().optional(),
  scope: z.string().optional(),
  username: z.string().optional(),
  method: z.enum(["device", "web", "token"]),
  client_id: z.string().optional(),
  saved_at: z.string(),
});
export type Credential = z.infer<typeof credentialSchema>;

const fileSchema = z.object({ version: z.literal(1), registries: z.record(z.string(), credentialSchema) });

export class CredentialStore {
  readonly dir: string;
  readonly path: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = join(userAiDir(env), "auth");
    this.path = join(this.dir, "credentials.json");
  }

  private async readAll(): Promise<Record<string, Credential>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch {
      return {};
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return {}; // a damaged file is treated as empty; the next login rewrites it
    }
    const parsed = fileSchema.safeParse(data);
    return parsed.success ? parsed.data.registries : {};
  }

  async get(registryUrl: string): Promise<Credential | undefined> {
    return (await this.readAll())[registryUrl];
  }

  async set(registryUrl: string, credential: Omit<Credential, "saved_at">): Promise<void> {
    const all = await this.readAll();
    all[registryUrl] = { ...credential, saved_at: new Date().toISOString() };
    await this.write(all);
  }

  async delete(registryUrl: string): Promise<boolean> {
    const all = await this.readAll();
    if (!(registryUrl in all)) return false;
    delete all[registryUrl];
    await this.write(all);
    return true;
  }

  private async write(registries: Record<string, Credential>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await writeFileAtomic(this.path, `${JSON.stringify({ version: 1, registries }, null, 2)}\n`, { mode: 0o600 });
  }
}
