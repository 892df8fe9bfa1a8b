/** Shared by the provider tests: the shipped provider YAMLs, the adapter wired to a fake server, small assertions. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { ProviderError } from "../../../../.ai/tools/rye/agent/threads/provider.mjs";
import { createProvider } from "../../../../.ai/tools/rye/agent/threads/provider.mjs";
import * as sse from "../../../../.ai/tools/rye/agent/threads/sse.mjs";
import * as httpTransport from "../../../../.ai/tools/rye/agent/threads/http.mjs";
import type { FakeLlm, FakeLlmOptions, Protocol } from "../fake-llm.ts";
import { startFakeLlm } from "../fake-llm.ts";
import { PROVIDERS_DIR } from "../runtime/files.ts";

export type Provider = ReturnType<typeof createProvider>;

/**
 * The transport the tests give the provider: the runtime's own (http.mjs, node:http), what thread_directive passes;
 * `RYE_PROVIDER_TRANSPORT=fetch` runs the same tests on the global fetch instead.
 */
export const transport = (process.env.RYE_PROVIDER_TRANSPORT === "fetch" ? globalThis.fetch : httpTransport.fetch) as typeof globalThis.fetch;

export interface ProviderCase {
  file: "anthropic" | "openai" | "openai_compatible";
  protocol: Protocol;
  /** The environment that points the provider at the fake server. */
  env(fake: FakeLlm): Record<string, string>;
  /** The fake's key (null: the server wants none). */
  apiKey?: string | null;
}

export const CASES: ProviderCase[] = [
  { file: "anthropic", protocol: "anthropic", env: (f) => ({ ANTHROPIC_API_KEY: f.apiKey ?? "", ANTHROPIC_BASE_URL: f.url }) },
  // OPENAI_BASE_URL includes /v1, as the OpenAI SDKs read it.
  { file: "openai", protocol: "openai", env: (f) => ({ OPENAI_API_KEY: f.apiKey ?? "", OPENAI_BASE_URL: `${f.url}/v1` }) },
  { file: "openai_compatible", protocol: "openai", apiKey: null, env: (f) => ({ RYE_OPENAI_COMPAT_BASE_URL: f.url }) },
];

export async function providerYaml(file: string): Promise<Record<string, any>> {
  return parseYaml(await readFile(join(PROVIDERS_DIR, `${file}.yaml`), "utf8")) as Record<string, any>;
}

export interface Harness {
  fake: FakeLlm;
  provider: Provider;
  env: Record<string, string | undefined>;
  config: Record<string, any>;
  /** A tier model of this provider. */
  model: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  stream?: boolean;
  fake?: FakeLlmOptions;
  /** Changes to the parsed YAML before the provider is made. */
  edit?: (config: Record<string, any>) => void;
  env?: Record<string, string | undefined>;
}

/** The shipped YAML of `kase`, streaming on or off, pointed at a fresh fake server. */
export async function harness(kase: ProviderCase, options: HarnessOptions = {}): Promise<Harness> {
  const fake = await startFakeLlm(kase.protocol, { ...(kase.apiKey !== undefined ? { apiKey: kase.apiKey } : {}), ...options.fake });
  const config = structuredClone(await providerYaml(kase.file));
  config.stream.enabled = options.stream ?? true;
  options.edit?.(config);
  const env: Record<string, string | undefined> = { ...kase.env(fake), ...options.env };
  const provider = createProvider(config, { env, sse, fetch: transport });
  return { fake, provider, env, config, model: provider.tiers.general!, close: () => fake.close() };
}

/** Runs `fn` and returns what it threw, failing when it did not throw. */
export async function thrown(fn: () => Promise<unknown>): Promise<ProviderError & Record<string, any>> {
  try {
    await fn();
  } catch (err) {
    return err as ProviderError & Record<string, any>;
  }
  assert.fail("expected the call to throw");
}

export const MODES = [
  { name: "JSON", stream: false },
  { name: "streamed", stream: true },
] as const;
