/**
 * The document builder's own form of an operation (contract/document.ts turns each route declaration into one), and
 * the compile-time checks some routes use to keep a declared shape equal to what their services return.
 */
import type { z } from "zod";
import type { Scope } from "../auth/principal.ts";
import type { Auth, ErrorFormat } from "./route.ts";

type JsonObject = Record<string, unknown>;

/** Compile-time checks that a documented shape matches the route's own type: equal types, or equal field names. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type KeysOf<T> = T extends unknown ? keyof T : never;
export type SameKeys<A, B> = Same<KeysOf<A>, KeysOf<B>>;

/** A non-error answer. */
export interface Reply {
  status: number;
  description: string;
  /** A JSON body: the id of a named schema. */
  schema?: string;
  content?: JsonObject;
  headers?: JsonObject;
}

export interface Operation {
  method: "get" | "post" | "delete" | "patch";
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Who may call (hand-written operations) … */
  auth?: Auth;
  /** … or the security requirements a declared route states. */
  security?: JsonObject[];
  /** Scopes a bearer token must hold (OpenAPI 3.1 role names of bearerAuth). */
  scopes?: Scope[];
  query?: z.ZodObject;
  body?: string;
  /** Media types of the body; default application/json. */
  bodyTypes?: string[];
  ok: Reply;
  /** Other non-error answers (redirects). */
  also?: Reply[];
  /** Error statuses, with a description of their causes when given. 401/403 follow from auth, 429 from /v1/. */
  errors: (number | [status: number, description: string])[];
  errorFormat?: ErrorFormat;
  /** Conditional GET: If-None-Match in, ETag + 304 out. */
  etag?: boolean;
}
