/**
 * Where the files that ship beside the code live, in the two layouts rye runs from:
 *
 * - a repository checkout, running the TypeScript sources through tsx (`src/…/*.ts`): runners in
 *   `packages/rye/runners/`, the system bundle in the repository's top-level `.ai/`;
 * - the published package `ryeos`, running the compiled bundle (`dist/*.js`): runners in `dist/runners/`
 *   (built, self-contained), the system bundle copied to `system/.ai/`.
 *
 * Both find the package root by walking up from the running module to the nearest `package.json`, so the
 * answer does not depend on how deep the bundler placed a chunk.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CLIENT_PACKAGE } from "@rye/core";

/** The npm name of the client package (its bin is still `rye`). */
export const PACKAGE_NAME = CLIENT_PACKAGE;

/** The directory holding the package.json nearest to `fromFile` (inclusive of its own directory). */
export function findPackageRoot(fromFile: string): string {
  let dir = dirname(fromFile);
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`rye: no package.json above ${fromFile}`);
    dir = parent;
  }
}

const here = fileURLToPath(import.meta.url);

/** True when this module runs from the TypeScript sources (a checkout), false in the built package. */
export const RUNNING_FROM_SOURCE = /\.[cm]?ts$/.test(here);

/** The root of the rye client package (`packages/rye` in a checkout, `node_modules/ryeos` when installed). */
export const PACKAGE_ROOT = findPackageRoot(here);

export interface PackageLayout {
  root: string;
  fromSource: boolean;
  runnersDir: string;
  /** The system bundle shipped inside the package (`system/.ai`); may not exist in a checkout. */
  packagedSystemAiDir: string;
  /** The repository's `.ai/` (checkouts only). */
  repoSystemAiDir: string;
  releasePublicKeyPath: string;
}

/** The layout for a package rooted at `root`, from source (checkout) or built (published). Pure: for tests. */
export function packageLayout(root: string, fromSource: boolean): PackageLayout {
  return {
    root,
    fromSource,
    runnersDir: fromSource ? join(root, "runners") : join(root, "dist", "runners"),
    packagedSystemAiDir: join(root, "system", ".ai"),
    repoSystemAiDir: resolve(root, "..", "..", ".ai"),
    releasePublicKeyPath: join(root, "release", "release_public_key.pem"),
  };
}

export const LAYOUT: PackageLayout = packageLayout(PACKAGE_ROOT, RUNNING_FROM_SOURCE);
