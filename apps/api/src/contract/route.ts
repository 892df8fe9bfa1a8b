/**
 * Route declarations: each route states its request (path parameters, query, body) and its answers once, in zod,
 * with `@hono/zod-openapi`'s `createRoute`, next to its handler. zod-openapi validates requests with it and types the
 * handler's input and output (`c.json(body, status)` must match the declared answer); the document
 * (contract/document.ts) is generated from the same declarations with zod's own JSON Schema conversion.
 *
 * The helpers here state rye's conventions once: who may call (`access`: security requirements, from which the
 * document derives 401 and 403), error answers in the rye envelope (`errors`), JSON answers with named schemas (`json`).
 */
import type { RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";
import type { Scope } from "../auth/principal.ts";

/**
 * Who may call: nobody in particular, a bearer token (optional or required), the `rye_session` cookie (`+csrf`: with
 * the session's X-CSRF-Token), or a "caller" (bearer token or session cookie, as accounts.ts requireCaller resolves it).
 */
export type Auth = "none" | "optional" | "required" | "session" | "session+csrf" | "optional-session" | "optional-session+csrf" | "caller" | "caller+csrf" | "optional-caller";
/** Error bodies: the rye envelope, RFC 6749 §5.2 (form-encoded /oauth/* endpoints) or an HTML page (browser /oauth/* endpoints). */
export type ErrorFormat = "envelope" | "oauth" | "html";

type SecurityRequirement = Record<string, string[]>;

/** The OpenAPI security requirements of each kind of caller. */
export function securityOf(auth: Auth, scopes: Scope[] = []): SecurityRequirement[] {
  const bearer = { bearerAuth: [...scopes] };
  const cookie = { cookieAuth: [] };
  const cookieCsrf = { cookieAuth: [], csrfToken: [] };
  const byAuth: Record<Auth, SecurityRequirement[]> = {
    none: [],
    optional: [{}, bearer],
    required: [bearer],
    session: [cookie],
    "session+csrf": [cookieCsrf],
    "optional-session": [{}, cookie],
    "optional-session+csrf": [{}, cookieCsrf],
    caller: [bearer, cookie],
    "caller+csrf": [bearer, cookieCsrf],
    "optional-caller": [{}, bearer, cookie],
  };
  return byAuth[auth];
}

/** `security` of a route declaration. */
export function access(auth: Auth, scopes?: Scope[]): { security: SecurityRequirement[] } {
  return { security: securityOf(auth, scopes) };
}

/** A JSON answer; `schema` carries `.meta({ id })`, which names it in the document's components. */
export function json<T extends z.ZodType>(schema: T, description: string, headers?: ResponseHeaders) {
  return { description, ...headersOf(headers), content: { "application/json": { schema } } };
}

/** Headers of an answer, as the document writes them: inline header objects, or `{ $ref: "#/components/headers/<name>" }`. */
export type ResponseHeaders = Record<string, { $ref: string } | { description?: string; required?: boolean; schema: Record<string, unknown> }>;
// zod-openapi types headers as its own OpenAPI objects; the document (contract/document.ts) copies them as they are.
const headersOf = (headers: ResponseHeaders | undefined) => (headers ? { headers: headers as Record<string, never> } : {});

/** An answer without a body (204, redirects), with its headers. */
export function noBody(description: string, headers?: ResponseHeaders) {
  return { description, ...headersOf(headers) };
}

/** A required JSON request body; `schema` carries `.meta({ id })`, which names it in the document's components. */
export function jsonRequest<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** Marks an answer as an error of rye's envelope (the document refers to the shared response, or describes the cause). */
export type ErrorAnswer = { description: string; "x-rye-error": true };

/**
 * Error answers of a route, by status, with a description of their causes when given (else the shared description).
 * 401 and 403 follow from `security` and 429 from the /v1/ prefix; list them only to describe them.
 */
export function errors(...statuses: (number | [status: number, description: string])[]): Record<number, ErrorAnswer> {
  return Object.fromEntries(statuses.map((s) => (typeof s === "number" ? [s, { description: "", "x-rye-error": true }] : [s[0], { description: s[1], "x-rye-error": true }]))) as Record<number, ErrorAnswer>;
}

/**
 * The 304 of a conditional GET: a route with `"x-rye-etag": true` lists it (so its handler may answer `c.body(null, 304)`);
 * the document describes it once, with the If-None-Match parameter and the ETag header.
 */
export const NOT_MODIFIED = { 304: { description: "Not modified (If-None-Match matched the ETag)" } };

/** rye's extensions of a route declaration (removed from the document). */
export interface RyeRouteExtensions {
  /** Conditional GET: If-None-Match in, ETag + 304 out. */
  "x-rye-etag"?: true;
  /** The format of error bodies; default the envelope. */
  "x-rye-error-format"?: ErrorFormat;
}

export type DeclaredRoute = RouteConfig & RyeRouteExtensions & { operationId: string; summary: string; tags: [string] };

/**
 * A service's answer whose fields are typed wider than the route declares them (a database string for an enum, a
 * boolean for a literal): it has every declared field, and the declaration states what the values are.
 */
export function declared<S extends z.ZodType>(_schema: S, value: { [K in keyof z.output<S>]: unknown }): z.output<S> {
  return value as z.output<S>;
}
