/** Semantic Versioning 2.0.0: parsing and precedence (pre-release aware, build metadata ignored). */

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: (string | number)[];
  build: string[];
  raw: string;
}

const NUM = "0|[1-9]\\d*";
const PRE_ID = `(?:${NUM}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const SEMVER_RE = new RegExp(
  `^(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$`,
);
const MAX_LENGTH = 256;

export function parseSemver(version: string): SemVer | null {
  if (typeof version !== "string" || version.length > MAX_LENGTH) return null;
  const m = SEMVER_RE.exec(version);
  if (!m) return null;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const patch = Number(m[3]);
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  const prerelease = m[4] ? m[4].split(".").map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : [];
  return { major, minor, patch, prerelease, build: m[5] ? m[5].split(".") : [], raw: version };
}

export function isSemver(version: unknown): version is string {
  return typeof version === "string" && parseSemver(version) !== null;
}

function compareIdentifiers(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1; // numeric identifiers have lower precedence
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative when a < b, zero when equal in precedence, positive when a > b. Throws on invalid input. */
export function compareSemver(a: string | SemVer, b: string | SemVer): number {
  const x = typeof a === "string" ? parseSemver(a) : a;
  const y = typeof b === "string" ? parseSemver(b) : b;
  if (!x || !y) throw new Error(`invalid semantic version: ${!x ? String(a) : String(b)}`);
  const core = x.major - y.major || x.minor - y.minor || x.patch - y.patch;
  if (core !== 0) return Math.sign(core);
  if (x.prerelease.length === 0 || y.prerelease.length === 0) {
    return y.prerelease.length - x.prerelease.length === 0 ? 0 : x.prerelease.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.max(x.prerelease.length, y.prerelease.length); i++) {
    if (i >= x.prerelease.length) return -1;
    if (i >= y.prerelease.length) return 1;
    const c = compareIdentifiers(x.prerelease[i]!, y.prerelease[i]!);
    if (c !== 0) return Math.sign(c);
  }
  return 0;
}

/** Highest version of a list; pre-releases only win when `includePrerelease` or nothing else exists. */
export function maxSemver(versions: readonly string[], options: { includePrerelease?: boolean } = {}): string | undefined {
  const valid = versions.filter(isSemver);
  const stable = options.includePrerelease ? valid : valid.filter((v) => parseSemver(v)!.prerelease.length === 0);
  const pool = stable.length > 0 ? stable : valid;
  return pool.reduce<string | undefined>((best, v) => (best === undefined || compareSemver(v, best) > 0 ? v : best), undefined);
}
