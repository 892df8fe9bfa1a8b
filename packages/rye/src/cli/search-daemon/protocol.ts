/**
 * The search daemon's wire format and where its socket lives. Imported by the tiny client that `bin/rye.mjs`
 * loads before the CLI (client.ts): node built-ins and the package version only, nothing of the CLI.
 *
 * One request per connection: one line of JSON, then one line of JSON back.
 *   request   {"protocol":1,"version":"…","op":"search","argv":[…],"cwd":"/abs","env":{…}}
 *             {"protocol":1,"version":"…","op":"status" | "stop"}
 *   answer    {"ok":true,"out":[[1,"text"],[2,"text"]…],"code":0}   (1 stdout, 2 stderr, in the order written)
 *             {"ok":true,"status":{…}}   or   {"ok":false,"reason":"…"}   (the client then searches in-process)
 */
import { homedir } from "node:os";
import { join } from "node:path";
import packageJson from "../../../package.json" with { type: "json" };

export const PROTOCOL = 1;
export const DAEMON_VERSION: string = packageJson.version;
/** Largest request line the daemon reads (argv, cwd and the environment); beyond it the request is refused. */
export const MAX_REQUEST_BYTES = 256 * 1024;
/** How long the daemon waits for a whole request line after a client connected (a local client writes it at once). */
export const REQUEST_READ_MS = 2000;
/** Connections the daemon holds at once; more wait in the kernel's backlog. */
export const MAX_CONNECTIONS = 64;
/** Largest answer the client reads; beyond it the client searches in-process. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** How long the client waits for the whole answer before searching in-process (RYE_SEARCH_DAEMON_TIMEOUT_MS). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Idle time after which the daemon exits (`rye search-daemon start --idle-timeout <seconds>`). */
export const DEFAULT_IDLE_SECONDS = 600;
/** Unix socket paths are limited to 108 bytes on Linux (104 on macOS). */
export const MAX_SOCKET_PATH = 100;

/** The user's rye state directory: `$XDG_STATE_HOME/rye`, else `~/.local/state/rye`. */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME?.trim();
  return join(state || join(homedir(), ".local", "state"), "rye");
}

/** One daemon per user (state directory) and version. */
export function socketPath(env: NodeJS.ProcessEnv): string {
  return join(stateDir(env), `search-${DAEMON_VERSION}.sock`);
}

/** Options of `rye search` that take a value (the next word is theirs, not a flag). */
export const VALUE_OPTIONS: ReadonlySet<string> = new Set(["-t", "--type", "-s", "--source", "-c", "--category", "-n", "--limit", "--offset", "-p", "--project", "--min-quality", "--sort"]);
/** Options that send the search to a registry even with --local. */
const REGISTRY_OPTIONS = /^--(?:registry-only|min-quality|sort)(?:=|$)/;

/**
 * Whether this `rye search` command line searches this machine only (the daemon serves nothing else: a
 * registry search is a network call, which the daemon never makes): `--local` as a flag or RYE_OFFLINE=1,
 * and none of the registry-only options. Conservative: when unsure, no.
 */
export function isLocalSearch(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (argv[0] !== "search") return false;
  let local = env.RYE_OFFLINE === "1";
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") break;
    if (REGISTRY_OPTIONS.test(word)) return false;
    if (VALUE_OPTIONS.has(word)) i++;
    else if (word === "--local") local = true;
  }
  return local;
}
