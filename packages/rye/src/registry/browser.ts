/** Best-effort: open a URL in the user's browser (never through a shell). The URL is always printed too. */
import { spawn } from "node:child_process";

export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.CI || env.RYE_NO_BROWSER || !/^https?:\/\//.test(url)) return false;
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  try {
    const child = spawn(command, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
