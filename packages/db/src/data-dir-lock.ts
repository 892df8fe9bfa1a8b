// PGlite is single-process: two processes on one data directory silently lose writes. A pid file
// next to the directory turns that into a clear error; a lock left by a dead process is taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
}

/** Takes the lock at `lockPath` and returns its release function. */
export function lockDataDir(lockPath: string, dataDir: string): () => void {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        if (ownerOf(lockPath) === process.pid) unlinkSync(lockPath);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = ownerOf(lockPath);
    if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
      throw new DataDirInUseError(
        `the embedded database in ${dataDir} is in use by process ${owner}; stop that process, ` +
          `use another data directory (RYE_DATA_DIR), or set DATABASE_URL`,
      );
    }
    if (owner === process.pid) {
      throw new DataDirInUseError(`the embedded database in ${dataDir} is already open in this process`);
    }
    if (attempt > 0) throw new DataDirInUseError(`could not lock ${lockPath}`);
    try {
      unlinkSync(lockPath); // left behind by a process that no longer runs
    } catch {}
  }
}

function ownerOf(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
