/**
 * A floor the thread-start bench measures but rye does not ship: a Node process started from a V8 startup snapshot
 * (`node --build-snapshot`, Node's user-land snapshot) whose heap already holds the evaluated SDK entry, i.e. the
 * cheapest start any process that has the SDK loaded could have. Node's snapshot builder runs one CommonJS file
 * that may require built-ins only, so the built entry and its chunks are bundled into one file with esbuild first
 * (`import.meta.url` set to a file in `dist/`, as the chunks would see it). The blob is specific to the Node binary
 * that built it. Returns the arguments that start such a process (it prints its RSS in MB) and a cleanup of its
 * temporary folder, or why it cannot.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

export async function buildSdkSnapshot(distDir: string): Promise<{ args: string[]; dispose(): Promise<void> } | { skipped: string }> {
  const dir = await mkdtemp(join(tmpdir(), "rye-sdk-snapshot-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const entry = join(dir, "entry.cjs");
  const blob = join(dir, "sdk.blob");
  await writeFile(
    entry,
    `globalThis.__sdk = require(${JSON.stringify(join(distDir, "sdk", "v1.js"))});\n` +
      `require("node:v8").startupSnapshot.setDeserializeMainFunction(() => {\n` +
      `  if (typeof globalThis.__sdk.SDK_VERSION !== "string") throw new Error("the snapshot holds no SDK");\n` +
      `  process.stdout.write(String(process.memoryUsage().rss / 1048576));\n` +
      `});\n`,
  );
  try {
    const { build } = await import("esbuild");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: join(dir, "bundle.cjs"),
      define: { "import.meta.url": JSON.stringify(pathToFileURL(join(distDir, "snapshot-entry.js")).href) },
      logLevel: "error",
    });
    await promisify(execFile)(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", join(dir, "bundle.cjs")], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    await dispose();
    return { skipped: `no startup snapshot of the SDK on Node ${process.version}: ${(err as Error).message.split("\n")[0]}` };
  }
  return { args: ["--snapshot-blob", blob], dispose };
}
