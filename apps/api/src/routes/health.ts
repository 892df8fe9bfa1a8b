import { Hono } from "hono";
import type { AppDeps } from "../app.ts";

export function healthRoutes(deps: AppDeps): Hono {
  return new Hono().get("/health", (c) => c.json({ status: "healthy", version: deps.version }));
}
