import { readFile } from "node:fs/promises";

/** Resident set size of process `pid` in MB (Linux /proc), or NaN when it cannot be read (another OS, a gone process). */
export async function rssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : Number.NaN;
}
