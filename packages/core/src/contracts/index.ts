/**
 * Contracts of the registry API responses that clients read (the website, the CLI): zod schemas and
 * the types inferred from them. The API's OpenAPI document is generated from the same schemas, and its
 * test checks live answers against them. The error envelope is `errorEnvelopeSchema` (contracts/errors.ts).
 */
export * from "./common.ts";
export * from "./search.ts";
export * from "./stats.ts";
export * from "./items.ts";
export * from "./keys.ts";
export * from "./verification.ts";
export * from "./relations.ts";
export { errorEnvelopeSchema } from "./errors.ts";
export * from "./quality.ts";
export * from "./publish.ts";
export * from "./bundles.ts";
export * from "./skills.ts";
export * from "./downloads.ts";
export * from "./log.ts";
export * from "./accounts.ts";
export * from "./transparency.ts";
