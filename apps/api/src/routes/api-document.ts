/**
 * GET /v1/openapi.json: the OpenAPI document (contract/document.ts builds it). The caller passes the document in, so
 * this route's declaration, which the document lists, does not import the builder back (no import cycle).
 */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { access } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";

export const apiDocumentRoute = createRoute({
  method: "get",
  path: "/v1/openapi.json",
  operationId: "getOpenApi",
  summary: "This document",
  tags: ["meta"],
  ...access("none"),
  responses: { 200: { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
});

export function apiDocumentRoutes(document: Record<string, unknown>): Hono<AppEnv> {
  return new Hono<AppEnv>().get(apiDocumentRoute.path, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(document);
  });
}
