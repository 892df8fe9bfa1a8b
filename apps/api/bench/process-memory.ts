import { readFile } from "node:fs/promises";

/** Resident set size of process `pid` in MB (Linux /proc), or NaN when it cannot be read (another OS, a gone process). */
export async function rssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : Number.NaN;
}

/**
 * CPU time (user + system) process `pid` has used, in ms (Linux /proc; clock ticks of 10 ms), or NaN when it cannot be
 * read. The difference over a load is the server's own work, whatever else the machine runs meanwhile.
 */
export async function cpuMs(pid: number | undefined): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : Number.NaN;
}
