/**
 * What a test needs from the machine beyond Node.js: a system program (haproxy, bubblewrap, util-linux's prlimit
 * and script, python3) or a PostgreSQL server. Outside CI a test whose requirement is missing is skipped with one line that
 * names it and says how to install it, so `npm test` passes on a machine with Node.js alone; under CI (`CI` set, as
 * .ci/run does) the same requirement missing throws, failing the test file loudly: CI installs everything and must
 * never pass by skipping. docs/testing.md lists the tests concerned.
 *
 * Use: `describe(name, { skip: skipWithoutProgram("haproxy") }, …)` or `test(name, { skip: skipUnless(reason) }, …)`.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

type Env = Record<string, string | undefined>;

interface ProgramSpec {
  /** The Debian package that installs it. */
  package: string;
  /** An environment variable that names the executable instead of a search. */
  override?: string;
}

/** The programs tests run. */
export const PROGRAMS = {
  haproxy: { package: "haproxy", override: "RYE_HAPROXY" },
  bwrap: { package: "bubblewrap" },
  prlimit: { package: "util-linux" },
  script: { package: "bsdutils" },
  python3: { package: "python3" },
  openssl: { package: "openssl", override: "RYE_OPENSSL" },
  // Debian's chromium, driven by playwright-core (Playwright's own browser builds cannot be downloaded here).
  chromium: { package: "chromium", override: "CHROMIUM_PATH" },
  // Go builds tools/tlog-verify offline in GOPATH mode against Debian's golang.org/x/mod (goSumdbMissing below).
  go: { package: "golang-go golang-golang-x-mod-dev", override: "RYE_GO" },
} as const satisfies Record<string, ProgramSpec>;
export type Program = keyof typeof PROGRAMS;

/** Where a program is looked for besides PATH: Debian puts haproxy in /usr/sbin, which a user's PATH lacks. */
const SBIN = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

/** A missing requirement under CI: thrown rather than skipped. */
export class RequirementMissingUnderCi extends Error {
  override name = "RequirementMissingUnderCi";
}

/** True when `CI` is set to anything but the empty string (as scripts/run-tests.mjs reads it). */
export function isCi(env: Env = process.env): boolean {
  return Boolean(env.CI);
}

/**
 * The decision every requirement goes through. `missing` is false when the requirement is met, else why it is not.
 * Returns false (run the test) or the skip reason (outside CI); throws RequirementMissingUnderCi under CI.
 */
export function skipUnless(missing: string | false, env: Env = process.env): string | false {
  if (missing === false) return false;
  if (isCi(env)) {
    throw new RequirementMissingUnderCi(`${missing}: CI runs every test, so a missing requirement fails it instead of skipping (docs/testing.md)`);
  }
  return `${missing}; skipped outside CI (docs/testing.md)`;
}

/** The absolute path of an executable `name` on PATH (or in the sbin directories), or undefined. */
export function findProgram(name: string, env: Env = process.env): string | undefined {
  const dirs = [...(env.PATH ?? "").split(delimiter).filter(Boolean), ...SBIN];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** Where `program` is: its override variable (RYE_HAPROXY) when set, else findProgram; undefined when absent. */
export function programPath(program: Program, env: Env = process.env): string | undefined {
  const spec: ProgramSpec = PROGRAMS[program];
  const override = spec.override ? env[spec.override] : undefined;
  if (override) {
    try {
      accessSync(override, constants.X_OK);
      return override;
    } catch {
      return undefined;
    }
  }
  return findProgram(program, env);
}

/** Why `program` is unavailable (one line with the package to install), or false when it is there. */
export function programMissing(program: Program, env: Env = process.env): string | false {
  if (programPath(program, env)) return false;
  const spec: ProgramSpec = PROGRAMS[program];
  const what = spec.override && env[spec.override] ? `${spec.override}=${env[spec.override]} is not an executable` : `${program} is not installed`;
  return `needs ${program}: ${what} (apt-get install ${spec.package}${spec.override ? `, or set ${spec.override}` : ""})`;
}

/** For node:test's `skip` option: false when `program` is available, else the reason (throws under CI). */
export function skipWithoutProgram(program: Program, env: Env = process.env): string | false {
  return skipUnless(programMissing(program, env), env);
}

/** Where Debian's golang-golang-x-mod-dev puts golang.org/x/mod (a GOPATH); `RYE_GOPATH` names another. */
export function goPath(env: Env = process.env): string {
  return env.RYE_GOPATH ?? "/usr/share/gocode";
}

/** Why Go cannot build tools/tlog-verify here (no go, or no golang.org/x/mod/sumdb), or false. */
export function goSumdbMissing(env: Env = process.env): string | false {
  const missing = programMissing("go", env);
  if (missing) return missing;
  try {
    accessSync(join(goPath(env), "src/golang.org/x/mod/sumdb/tlog/tlog.go"), constants.R_OK);
    return false;
  } catch {
    return `needs golang.org/x/mod/sumdb in ${goPath(env)} (apt-get install golang-golang-x-mod-dev, or set RYE_GOPATH)`;
  }
}
