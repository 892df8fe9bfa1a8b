/**
 * OS limits and isolation for subprocess tools (docs/security.md), where the OS offers them:
 * - Linux: CPU time and address-space limits with `prlimit` (util-linux); no network and a read-only view of
 *   everything outside the project (and a private /tmp) with bubblewrap (`bwrap`), when it is installed.
 * - Elsewhere: none of it. Limits asked for there are reported as not applied; isolation asked for is refused
 *   (ISOLATION_UNAVAILABLE) unless the request says it is optional. Nothing is ever claimed that does not hold.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import type { SandboxSpec } from "@rye/core";
import { RyeError } from "@rye/core";
import { pathCandidates, pathFromEnv } from "../../fs/platform.ts";

export interface SandboxPlan {
  command: string;
  args: string[];
  /** What holds for this run (reported in the result's metadata). */
  applied: { network: boolean | null; filesystem: "all" | "project" | null; memory_mb: number | null; cpu_seconds: number | null; via: string[] };
  /** What was asked for and does not hold here. */
  missing: string[];
}

const which = new Map<string, string | null>();
/** `program`'s path on PATH (absolute entries only, as `findOnPath`), looked up once per PATH value without a shell. */
function find(program: string): string | null {
  const pathValue = pathFromEnv(process.env);
  const key = `${pathValue ?? ""}\0${program}`;
  if (!which.has(key)) {
    const found = pathCandidates(program, pathValue, process.env).find((candidate) => {
      try {
        if (!statSync(candidate).isFile()) return false;
        accessSync(candidate, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    which.set(key, found ?? null);
  }
  return which.get(key)!;
}

/** Whether bubblewrap can actually start here (installed, and user namespaces allowed). Checked once per process. */
let bwrapWorks: boolean | undefined;
function bubblewrap(): string | null {
  const path = process.platform === "linux" ? find("bwrap") : null;
  if (!path) return null;
  if (bwrapWorks === undefined) {
    try {
      execFileSync(path, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--die-with-parent", "true"], { stdio: "ignore", timeout: 10_000 });
      bwrapWorks = true;
    } catch {
      bwrapWorks = false;
    }
  }
  return bwrapWorks ? path : null;
}

/** Combines what the tool asks for with what the policy imposes: the stricter of each. */
export function combineSandbox(a: SandboxSpec | undefined, b: SandboxSpec | undefined): SandboxSpec | undefined {
  if (!a) return b;
  if (!b) return a;
  const min = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  const out: SandboxSpec = {};
  if (a.network === false || b.network === false) out.network = false;
  else if (a.network !== undefined || b.network !== undefined) out.network = true;
  if (a.filesystem === "project" || b.filesystem === "project") out.filesystem = "project";
  else if (a.filesystem ?? b.filesystem) out.filesystem = "all";
  const memory = min(a.memory_mb, b.memory_mb);
  const cpu = min(a.cpu_seconds, b.cpu_seconds);
  if (memory !== undefined) out.memory_mb = memory;
  if (cpu !== undefined) out.cpu_seconds = cpu;
  out.required = (a.required ?? true) || (b.required ?? true);
  return out;
}

/** The command line that runs `command args` under `spec` on this machine, or the refusal when isolation cannot hold. */
export function planSandbox(spec: SandboxSpec, run: { command: string; args: string[]; cwd: string; projectPath: string }): SandboxPlan {
  const applied: SandboxPlan["applied"] = { network: null, filesystem: null, memory_mb: null, cpu_seconds: null, via: [] };
  const missing: string[] = [];
  let command = run.command;
  let args = [...run.args];

  const isolate = spec.network === false || spec.filesystem === "project";
  if (isolate) {
    const bwrap = bubblewrap();
    if (!bwrap) {
      const why = process.platform !== "linux" ? `isolation needs Linux with bubblewrap; this is ${process.platform}` : "bubblewrap (bwrap) is not installed or cannot create namespaces here";
      if (spec.required ?? true) {
        throw new RyeError("ISOLATION_UNAVAILABLE", `The tool asks to run isolated (${[spec.network === false ? "no network" : "", spec.filesystem === "project" ? "read-only outside the project" : ""].filter(Boolean).join(", ")}), and ${why}`, {
          hint: process.platform === "linux" ? "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap), or set sandbox.required: false to run without isolation." : "Run it on Linux with bubblewrap, or set sandbox.required: false to run without isolation.",
        });
      }
      missing.push(why);
    } else {
      const wrap = ["--die-with-parent", "--dev", "/dev", "--proc", "/proc"];
      if (spec.filesystem === "project") {
        wrap.unshift("--ro-bind", "/", "/");
        wrap.push("--tmpfs", "/tmp", "--bind", run.projectPath, run.projectPath);
        applied.filesystem = "project";
      } else {
        wrap.unshift("--bind", "/", "/");
        applied.filesystem = "all";
      }
      if (spec.network === false) {
        wrap.push("--unshare-net");
        applied.network = false;
      } else applied.network = true;
      wrap.push("--chdir", run.cwd, "--", command, ...args);
      command = bwrap;
      args = wrap;
      applied.via.push("bubblewrap");
    }
  }

  if (spec.memory_mb !== undefined || spec.cpu_seconds !== undefined) {
    const prlimit = process.platform === "linux" ? find("prlimit") : null;
    if (!prlimit) {
      missing.push(`CPU and memory limits need Linux with prlimit; ${process.platform === "linux" ? "prlimit (util-linux) is not installed" : `this is ${process.platform}`}`);
    } else {
      const limits: string[] = [];
      if (spec.memory_mb !== undefined) {
        limits.push(`--as=${spec.memory_mb * 1024 * 1024}`);
        applied.memory_mb = spec.memory_mb;
      }
      if (spec.cpu_seconds !== undefined) {
        // Soft limit: SIGXCPU (recognisable); the hard limit a second later kills what ignores it.
        limits.push(`--cpu=${spec.cpu_seconds}:${spec.cpu_seconds + 1}`);
        applied.cpu_seconds = spec.cpu_seconds;
      }
      args = [...limits, "--", command, ...args];
      command = prlimit;
      applied.via.push("prlimit");
    }
  }
  return { command, args, applied, missing };
}

const MEMORY_SIGNS = /MemoryError|heap out of memory|Cannot allocate memory|std::bad_alloc|out of memory|failed to map segment|Out of memory/i;

/** The limit a failed run ran into, if it looks like one (used to say so instead of a bare exit code). */
export function limitHit(plan: SandboxPlan, result: { exitCode: number | null; signal: string | null; stderr: string }): "cpu" | "memory" | null {
  if (plan.applied.cpu_seconds !== null && (result.signal === "SIGXCPU" || result.signal === "SIGKILL" || result.exitCode === 152 || result.exitCode === 137)) return "cpu";
  if (plan.applied.memory_mb !== null && (MEMORY_SIGNS.test(result.stderr) || result.signal === "SIGABRT" || result.signal === "SIGSEGV" || result.exitCode === 134)) return "memory";
  return null;
}
