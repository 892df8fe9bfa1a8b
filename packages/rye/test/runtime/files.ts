/** Paths of the agent runtime's files in the system bundle (`.ai/tools/rye/agent/`), for tests. */
import { fileURLToPath } from "node:url";

export const THREADS_DIR = fileURLToPath(new URL("../../../../.ai/tools/rye/agent/threads/", import.meta.url));
export const PROVIDERS_DIR = fileURLToPath(new URL("../../../../.ai/tools/rye/agent/providers/", import.meta.url));
export const runtimeFile = (name: string) => new URL(`../../../../.ai/tools/rye/agent/threads/${name}`, import.meta.url).href;
