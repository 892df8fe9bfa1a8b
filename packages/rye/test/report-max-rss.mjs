// Preloaded into a `rye` child process by tests (`node --import`): on exit, writes the process's peak
// resident set size in bytes to $RYE_TEST_MAX_RSS_FILE.
import { writeFileSync } from "node:fs";

const file = process.env.RYE_TEST_MAX_RSS_FILE;
if (file) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
