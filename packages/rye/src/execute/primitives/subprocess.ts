/**
 * The subprocess primitive: runs one program without a shell, in its own process group, with a timeout, output caps
 * and abort support. It receives final values: it never templates (templating happens once, before the primitive).
 */
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { Readable } from "node:stream";
import { CappedOutput } from "./capped-output.ts";
import { progressListener } from "../../engine/progress.ts";
import { forwardProgress, PROGRESS_FD } from "./progress-channel.ts";
import { isWindows } from "../../fs/platform.ts";
import { terminateProcessGroup, treeSpawnOptions } from "./process-group.ts";
import type { SandboxSpec } from "@rye/core";
import type { SandboxPlan } from "./sandbox.ts";
import { limitHit, planSandbox } from "./sandbox.ts";

export interface SubprocessConfig {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Seconds, default 300. */
  timeout?: number;
  input_data?: string;
}

export interface SubprocessLimits {
  maxStdoutBytes: number;
  maxStderrBytes: number;
  maxTimeoutSeconds: number;
  killGraceMs: number;
}

export interface SubprocessResult {
  success: boolean;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** stdout parsed as JSON, else null. */
  data: unknown;
  /** The limits and isolation that held for this run, and what was asked for and could not be had. */
  sandbox?: { applied: SandboxPlan["applied"]; missing: string[] };
}

export interface SubprocessOptions {
  limits?: Partial<SubprocessLimits>;
  /** Environment under `config.env`; default `process.env`. */
  baseEnv?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** OS limits and isolation (sandbox.ts); `projectPath` is what stays writable with `filesystem: project`. */
  sandbox?: { spec: SandboxSpec; projectPath: string };
}

export const DEFAULT_SUBPROCESS_LIMITS: SubprocessLimits = {
  maxStdoutBytes: 10 * 1024 * 1024,
  maxStderrBytes: 1024 * 1024,
  maxTimeoutSeconds: 3600,
  killGraceMs: 2000,
};
export const DEFAULT_SUBPROCESS_TIMEOUT_SECONDS = 300;

const noNul = (what: string) => z.string().refine((s) => !s.includes("\0"), `${what} must not contain NUL bytes`);

const configSchema = z.object({
  command: noNul("command").pipe(z.string().min(1, "command must not be empty")),
  args: z.array(noNul("arguments")).optional(),
  cwd: noNul("cwd").pipe(z.string().min(1)).optional(),
  env: z.record(z.string().regex(/^[^=\0]+$/, "environment names must be non-empty without '=' or NUL"), noNul("environment values")).optional(),
  timeout: z.number().positive().finite().optional(),
  input_data: z.string().optional(),
});

function parseConfig(config: unknown, limits: SubprocessLimits): z.infer<typeof configSchema> & { timeout: number } {
  const parsed = configSchema.safeParse(config);
  if (!parsed.success) {
    const nul = parsed.error.issues.some((issue) => issue.message.includes("NUL"));
    throw new RyeError(nul ? "INPUT_INVALID" : "BAD_REQUEST", `Invalid subprocess config: ${z.prettifyError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const timeout = parsed.data.timeout ?? DEFAULT_SUBPROCESS_TIMEOUT_SECONDS;
  if (timeout > limits.maxTimeoutSeconds) {
    throw new RyeError("INPUT_INVALID", `Subprocess timeout ${timeout}s is above the limit of ${limits.maxTimeoutSeconds}s`);
  }
  return { ...parsed.data, timeout };
}

async function assertDirectory(cwd: string): Promise<void> {
  const isDir = await stat(cwd).then((s) => s.isDirectory(), () => false);
  // Checked up front: spawn reports a missing cwd as ENOENT, indistinguishable from a missing command.
  if (!isDir) throw new RyeError("PROCESS_FAILED", `Working directory ${cwd} does not exist or is not a directory`, { hint: "Check the cwd in the tool's config." });
}

function spawnError(command: string, err: NodeJS.ErrnoException): RyeError {
  const hints: Record<string, string> = {
    ENOENT: `"${command}" was not found: install it, fix the runtime's command, or check PATH.`,
    EACCES: `"${command}" is not executable (check its permissions, and that it is a file, not a directory).`,
  };
  return new RyeError("PROCESS_FAILED", `Cannot start "${command}": ${err.code ?? err.message}`, {
    hint: hints[err.code ?? ""] ?? `Starting "${command}" failed.`,
    details: { command, code: err.code },
  });
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return null;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return null;
  }
}

function reportsFailure(data: unknown): boolean {
  return data !== null && typeof data === "object" && !Array.isArray(data) && (data as { success?: unknown }).success === false;
}

function mergeEnv(baseEnv: Record<string, string | undefined>, env: Record<string, string> | undefined): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...baseEnv, ...env })) if (value !== undefined) merged[key] = value;
  return merged;
}

type Ending = { kind: "closed"; exitCode: number | null; signal: string | null } | { kind: "spawn-error"; error: NodeJS.ErrnoException };

export async function runSubprocess(config: SubprocessConfig, options: SubprocessOptions = {}): Promise<SubprocessResult> {
  const limits: SubprocessLimits = { ...DEFAULT_SUBPROCESS_LIMITS, ...options.limits };
  const parsed = parseConfig(config, limits);
  if (parsed.cwd) await assertDirectory(parsed.cwd);
  options.signal?.throwIfAborted();

  const plan = options.sandbox ? planSandbox(options.sandbox.spec, { command: parsed.command, args: parsed.args ?? [], cwd: parsed.cwd ?? process.cwd(), projectPath: options.sandbox.projectPath }) : null;
  const started = performance.now();
  // A caller listening for progress gets the tool's own reports through a pipe on fd 3 (progress-channel.ts).
  const withProgressPipe = progressListener() !== undefined;
  const env = mergeEnv(options.baseEnv ?? process.env, parsed.env);
  if (withProgressPipe) env.RYE_PROGRESS_FD = String(PROGRESS_FD);
  else delete env.RYE_PROGRESS_FD;
  const child = spawn(plan ? plan.command : parsed.command, plan ? plan.args : (parsed.args ?? []), {
    shell: false,
    ...treeSpawnOptions(),
    cwd: parsed.cwd,
    env,
    stdio: withProgressPipe ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
  });
  if (withProgressPipe && child.stdio[PROGRESS_FD]) forwardProgress(child.stdio[PROGRESS_FD] as Readable, "tool");
  const stdout = new CappedOutput(limits.maxStdoutBytes);
  const stderr = new CappedOutput(limits.maxStderrBytes);
  let stopReason: "timeout" | "stdout" | "stderr" | "abort" | undefined;

  const stop = (reason: NonNullable<typeof stopReason>) => {
    if (stopReason || child.pid === undefined) return;
    stopReason = reason;
    terminateProcessGroup(child.pid, limits.killGraceMs);
  };
  const onAbort = () => stop("abort");
  const timer = setTimeout(() => stop("timeout"), parsed.timeout * 1000);
  options.signal?.addEventListener("abort", onAbort, { once: true });

  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk) || stop("stdout"));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk) || stop("stderr"));
  // The program may exit without reading its input; EPIPE then is expected, not an error.
  child.stdin.on("error", () => {});
  child.stdin.end(parsed.input_data ?? "");
  // Anything the program left running in its group would hold the pipes open and outlive the run. (Windows: an
  // exited process's children are no longer found through it, and taskkill would only target a reusable pid.)
  child.on("exit", () => {
    if (child.pid !== undefined && !isWindows()) terminateProcessGroup(child.pid, limits.killGraceMs);
  });

  const ending = await new Promise<Ending>((resolve) => {
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) resolve({ kind: "spawn-error", error });
    });
    child.on("close", (exitCode, signal) => resolve({ kind: "closed", exitCode, signal }));
  });
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  const durationMs = Math.round(performance.now() - started);

  if (ending.kind === "spawn-error") throw spawnError(parsed.command, ending.error);
  if (stopReason === "abort") throw options.signal?.reason ?? new Error("aborted");
  if (stopReason === "timeout") {
    throw new RyeError("TIMEOUT", `"${parsed.command}" did not finish within ${parsed.timeout}s and was killed`, {
      details: { timeoutSeconds: parsed.timeout, durationMs, stdout: stdout.tail(), stderr: stderr.tail() },
    });
  }
  if (stopReason === "stdout" || stopReason === "stderr") {
    const cap = stopReason === "stdout" ? limits.maxStdoutBytes : limits.maxStderrBytes;
    throw new RyeError("OUTPUT_TOO_LARGE", `"${parsed.command}" wrote more than ${cap} bytes to ${stopReason} and was killed`, {
      details: { stream: stopReason, limitBytes: cap, stdout: stdout.tail(), stderr: stderr.tail() },
    });
  }

  const stdoutText = stdout.text();
  const data = parseJson(stdoutText);
  if (plan && ending.exitCode !== 0) {
    const hit = limitHit(plan, { exitCode: ending.exitCode, signal: ending.signal, stderr: stderr.text() });
    if (hit) {
      const what = hit === "cpu" ? `its CPU limit of ${plan.applied.cpu_seconds} s` : `its memory limit of ${plan.applied.memory_mb} MiB`;
      throw new RyeError("RESOURCE_LIMIT", `"${parsed.command}" was stopped by ${what}`, {
        details: { limit: hit, applied: plan.applied, exitCode: ending.exitCode, signal: ending.signal, durationMs, stderr: stderr.tail() },
      });
    }
  }
  return {
    ...(plan ? { sandbox: { applied: plan.applied, missing: plan.missing } } : {}),
    success: ending.exitCode === 0 && !reportsFailure(data),
    exitCode: ending.exitCode,
    signal: ending.signal,
    stdout: stdoutText,
    stderr: stderr.text(),
    durationMs,
    data,
  };
}
