// rye:signed:2026-11-29T13:41:57Z:8c52ce062b24d7025b45a9ab89b5b6ed0327d8f59722aeb32e75ac767f9cdb0b:5pHSpQfRILDgsePYjCGGufk5hHjgmKjzH1iySb7eiS6enH9XxYZHeUvSVj1HwStcC6i9oQuTqCplPwaj-f2oBg==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T3";
export const __category__ = "rye/bash";
export const __tool_description__ = "Run a bash command in the project directory (the command is bash source by design), with a timeout";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    command: { type: "string", maxLength: 100000, description: "Bash source to run" },
    timeout_seconds: { type: "integer", minimum: 1, maximum: 3600, default: 120 },
  },
  required: ["command"],
  additionalProperties: false,
};

import { spawn } from "node:child_process";

const MAX_OUTPUT = 1024 * 1024;

export function main(params, context) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", params.command], { cwd: context.projectPath, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let truncated = false;
    const collect = (which) => (chunk) => {
      const text = chunk.toString("utf8");
      if (which === "out") stdout += text;
      else stderr += text;
      if (stdout.length + stderr.length > MAX_OUTPUT) {
        truncated = true;
        stdout = stdout.slice(0, MAX_OUTPUT);
        stderr = stderr.slice(0, MAX_OUTPUT);
        try { process.kill(-child.pid, "SIGKILL"); } catch {}
      }
    };
    child.stdout.on("data", collect("out"));
    child.stderr.on("data", collect("err"));
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, "SIGKILL"); } catch {}
      reject(new Error(`command timed out after ${params.timeout_seconds}s`));
    }, params.timeout_seconds * 1000);
    child.on("error", (err) => { clearTimeout(timer); reject(err); });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ success: code === 0, exit_code: code, signal, stdout, stderr, truncated });
    });
  });
}
