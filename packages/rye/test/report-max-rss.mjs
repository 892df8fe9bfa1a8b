// Preloaded into a `rye` child process by tests (`node --import`): on exit, writes the process's peak
// resident set size in bytes to $RYE_TEST_MAX_RSS_FILE.
//
// On Linux this is VmHWM of /proc/self/status, the high-water mark of this process's own memory. Not
// `process.resourceUsage().maxRSS`: getrusage keeps the largest of the process's values across execve, so a
// child spawned by a large test runner reports the runner's size, whatever the child itself does.
import { readFileSync, writeFileSync } from "node:fs";

const file = process.env.RYE_TEST_MAX_RSS_FILE;

function peakRss() {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // not Linux: fall back below
  }
  return process.resourceUsage().maxRSS * 1024;
}

if (file) process.on("exit", () => writeFileSync(file, String(peakRss())));
