export { createApp } from "./app.ts";
export type { AppDeps } from "./app.ts";
