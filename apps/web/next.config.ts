import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const here = dirname(fileURLToPath(import.meta.url));

const config: NextConfig = {
  // @rye/core ships TypeScript sources (the same validators and signature code as the API and the CLI).
  transpilePackages: ["@rye/core"],
  turbopack: { root: resolve(here, "../..") },
  outputFileTracingRoot: resolve(here, "../.."),
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
