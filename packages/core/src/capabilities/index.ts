export * from "./capabilities.ts";
