import assert from "node:assert/strict";
import { test } from "node:test";
import { compareSemver, isSemver, maxSemver, parseSemver } from "./semver.ts";

test("parses semver 2.0.0 and rejects near misses", () => {
  assert.deepEqual(parseSemver("1.2.3-beta.11+build.5"), {
    major: 1, minor: 2, patch: 3, prerelease: ["beta", 11], build: ["build", "5"], raw: "1.2.3-beta.11+build.5",
  });
  for (const bad of ["1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0-01", "1.0.0+", " 1.0.0", "1.0.0\n", "x.y.z", "1.0.0-a..b", `${"9".repeat(20)}.0.0`]) {
    assert.equal(isSemver(bad), false, bad);
  }
  assert.ok(isSemver("0.0.0") && isSemver("10.20.30-rc.1") && isSemver("1.0.0-0A.is.legal"));
});

test("precedence follows the semver spec example order", () => {
  const ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"];
  for (let i = 0; i < ordered.length - 1; i++) {
    assert.ok(compareSemver(ordered[i]!, ordered[i + 1]!) < 0, `${ordered[i]} < ${ordered[i + 1]}`);
    assert.ok(compareSemver(ordered[i + 1]!, ordered[i]!) > 0);
  }
  assert.equal(compareSemver("1.0.0+a", "1.0.0+b"), 0, "build metadata is ignored");
  assert.throws(() => compareSemver("1.0", "1.0.0"));
});

test("maxSemver prefers stable releases", () => {
  assert.equal(maxSemver(["1.0.0", "2.0.0-rc.1", "1.5.0"]), "1.5.0");
  assert.equal(maxSemver(["1.0.0", "2.0.0-rc.1"], { includePrerelease: true }), "2.0.0-rc.1");
  assert.equal(maxSemver(["2.0.0-rc.1", "2.0.0-rc.2"]), "2.0.0-rc.2");
  assert.equal(maxSemver([]), undefined);
});
