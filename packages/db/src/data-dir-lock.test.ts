/** The embedded database's lock against real processes: live, exiting, zombie, reused pids, and openers racing. */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DataDirInUseError, lockDataDir } from "./data-dir-lock.ts";

const linux = existsSync("/proc/self/stat");
const root = mkdtempSync(join(tmpdir(), "rye-lock-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const lockPath = () => join(root, `pglite-${n++}.lock`);

function procStat(pid: number): { state: string; startTime: string } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return { state: fields[0]!, startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

/** A process that sleeps until killed. */
async function sleeper(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e9)"], { stdio: "ignore" });
  await once(child, "spawn");
  return child;
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe("the data directory lock", () => {
  test("a running owner gets DATA_DIR_IN_USE with a hint, after the bounded wait, and keeps its lock", async () => {
    const path = lockPath();
    const owner = await sleeper();
    try {
      const stat = procStat(owner.pid!);
      writeFileSync(path, stat ? `${owner.pid} ${stat.startTime}\n` : `${owner.pid}\n`);
      const started = performance.now();
      await assert.rejects(lockDataDir(path, "/data/pglite", { waitMs: 400 }), (err: unknown) => {
        assert.ok(err instanceof DataDirInUseError);
        assert.equal(err.code, "DATA_DIR_IN_USE");
        assert.match(err.message, new RegExp(`^the embedded database in /data/pglite is in use by process ${owner.pid} \\(waited 400 ms`));
        assert.match(err.hint, /Stop the other rye server .*RYE_DATA_DIR/);
        return true;
      });
      const waited = performance.now() - started;
      assert.ok(waited >= 400 && waited < 5000, `waited ${waited} ms`);
      assert.match(readFileSync(path, "utf8"), new RegExp(`^${owner.pid}\\b`), "the owner's lock is left alone");
    } finally {
      owner.kill("SIGKILL");
    }
  });

  test("an owner that exits during the wait: its lock is taken over once it is gone", async () => {
    const path = lockPath();
    const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 300)"], { stdio: "ignore" });
    await once(owner, "spawn");
    writeFileSync(path, `${owner.pid}\n`);
    const { value: release, ms } = await timed(lockDataDir(path, "d", { waitMs: 30_000 }));
    assert.ok(ms < 20_000, `took ${ms} ms`);
    // Exited (gone, or a zombie this process has not reaped yet): not running when its lock was taken.
    if (linux) assert.ok([undefined, "Z"].includes(procStat(owner.pid!)?.state), "it was taken only after the owner exited");
    assert.match(readFileSync(path, "utf8"), new RegExp(`^${process.pid}\\b`));
    release();
    assert.equal(existsSync(path), false, "release removes it");
  });

  test("a killed owner its parent has not reaped (a zombie) is taken over at once", { skip: !linux && "zombies are read from /proc (Linux)" }, async () => {
    const path = lockPath();
    // The owner's parent blocks its event loop for good, so it never reaps the owner: the owner stays a zombie.
    const parent = spawn(
      process.execPath,
      ["-e", "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' }); console.log(c.pid); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const [line] = (await once(parent.stdout!, "data")) as [Buffer];
      const pid = Number(line.toString().trim());
      while (procStat(pid) === undefined) await new Promise((r) => setTimeout(r, 10));
      writeFileSync(path, `${pid} ${procStat(pid)!.startTime}\n`);
      process.kill(pid, "SIGKILL");
      while (procStat(pid)?.state !== "Z") await new Promise((r) => setTimeout(r, 10));
      const { value: release, ms } = await timed(lockDataDir(path, "d", { waitMs: 30_000 }));
      assert.equal(procStat(pid)?.state, "Z", "still a zombie when the lock was taken");
      assert.ok(ms < 5000, `took ${ms} ms: it waited instead of taking over`);
      release();
    } finally {
      parent.kill("SIGKILL");
    }
  });

  test("a lock naming a pid now used by another process (start time differs) is taken over at once", { skip: !linux && "start times are read from /proc (Linux)" }, async () => {
    const other = await sleeper();
    try {
      const path = lockPath();
      const startTime = Number(procStat(other.pid!)!.startTime);
      writeFileSync(path, `${other.pid} ${startTime - 1}\n`);
      const { value: release, ms } = await timed(lockDataDir(path, "d", { waitMs: 30_000 }));
      assert.ok(ms < 5000, `took ${ms} ms`);
      release();
      // Our own pid left by an earlier process (a container's pid 1 after a restart): not "open in this process".
      writeFileSync(path, `${process.pid} ${Number(procStat(process.pid)!.startTime) - 1}\n`);
      (await lockDataDir(path, "d", { waitMs: 0 }))();
    } finally {
      other.kill("SIGKILL");
    }
  });

  test("a second open in the same process is refused at once; a garbled lock or a dead pid is taken over", async () => {
    const path = lockPath();
    const release = await lockDataDir(path, "d", { waitMs: 30_000 });
    const { ms } = await timed(assert.rejects(lockDataDir(path, "d", { waitMs: 30_000 }), /already open in this process/));
    assert.ok(ms < 5000);
    release();
    for (const garbage of ["", "not a pid\n", "0\n", "12 34 56\n"]) {
      writeFileSync(path, garbage);
      (await lockDataDir(path, "d", { waitMs: 0 }))();
    }
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(dead, "exit");
    writeFileSync(path, `${dead.pid}\n`); // the format of earlier releases: a pid alone
    (await lockDataDir(path, "d", { waitMs: 0 }))();
  });

  test("openers racing for a stale lock: exactly one gets it", async () => {
    const path = lockPath();
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await once(dead, "exit");
    writeFileSync(path, `${dead.pid}\n`);
    const module = fileURLToPath(new URL("./data-dir-lock.ts", import.meta.url));
    // Each opener waits for a start file, tries once (no wait) and holds what it got until killed.
    const go = join(root, `go-${n}`);
    const script = `const { lockDataDir } = await import(${JSON.stringify(module)}); const fs = await import("node:fs");
      console.log("ready");
      while (!fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
      try { await lockDataDir(${JSON.stringify(path)}, "d", { waitMs: 0 }); console.log("locked"); } catch (e) { console.log(e.code ?? e.message); }
      setInterval(() => {}, 1e9);`;
    const openers = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      return { child, lines: () => out.split("\n").filter(Boolean) };
    });
    try {
      while (!openers.every((o) => o.lines().length >= 1)) await new Promise((r) => setTimeout(r, 20));
      writeFileSync(go, "");
      while (!openers.every((o) => o.lines().length >= 2)) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(openers.map((o) => o.lines()[1]).toSorted(), ["DATA_DIR_IN_USE", "DATA_DIR_IN_USE", "DATA_DIR_IN_USE", "locked"]);
    } finally {
      for (const { child } of openers) child.kill("SIGKILL");
    }
  });
});
