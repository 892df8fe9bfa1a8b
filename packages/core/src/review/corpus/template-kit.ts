/** What the corpus templates share: the sample shape, a seeded random source, and builders for skills, tools, directives. */
import { gzipSync } from "node:zlib";
import { REVIEW_FAMILIES, type Family } from "../families.ts";

export const FAMILIES = REVIEW_FAMILIES;
export type { Family };

export interface CorpusFile {
  path: string;
  text: string;
}

export interface CorpusSample {
  id: string;
  label: "malicious" | "benign";
  /** The attack family; for benign samples the family whose rules it looks like (a hard case), or "ordinary". */
  family: Family | "ordinary";
  kind: "skill" | "tool" | "directive";
  title: string;
  files: CorpusFile[];
}

export interface Made {
  kind: CorpusSample["kind"];
  title: string;
  files: CorpusFile[];
}

export interface Template {
  id: string;
  family: CorpusSample["family"];
  variants: number;
  make: (r: Rng, variant: number) => Made;
}

export interface Rng {
  pick<T>(items: readonly T[]): T;
  int(min: number, max: number): number;
  chance(p: number): boolean;
}

/** mulberry32 seeded by an FNV-1a hash of the sample id. */
export function rngFor(id: string): Rng {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  let a = h;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    pick: (items) => items[Math.floor(next() * items.length)]!,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
  };
}

export const skillMd = (name: string, description: string, body: string): CorpusFile => ({
  path: "SKILL.md",
  text: `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  version: 1.0.0\n---\n\n# ${name}\n\n${body.trim()}\n`,
});

export const skill = (title: string, name: string, description: string, body: string, ...files: CorpusFile[]): Made => ({
  kind: "skill",
  title,
  files: [skillMd(name, description, body), ...files],
});

export const pyTool = (name: string, description: string, body: string): CorpusFile => ({
  path: `${name}.py`,
  text: `#!/usr/bin/env python3\n"""${description}"""\nimport json\nimport sys\n\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script"\n__category__ = "utils"\n__tool_description__ = "${description}"\n\n${body.trim()}\n`,
});

export const shTool = (name: string, description: string, body: string): CorpusFile => ({
  path: `${name}.sh`,
  text: `#!/usr/bin/env bash\n# @version 1.0.0\n# @tool_type bash\n# @executor_id rye/core/runtimes/bash\n# @category utils\n# @description ${description}\nset -euo pipefail\n${body.trim()}\n`,
});

export const jsTool = (name: string, description: string, body: string): CorpusFile => ({
  path: `${name}.js`,
  text: `// @version 1.0.0\n// @tool_type javascript\n// @executor_id rye/core/runtimes/node\n// @description ${description}\n${body.trim()}\n`,
});

export const tool = (title: string, file: CorpusFile): Made => ({ kind: "tool", title, files: [file] });

export const directive = (title: string, name: string, description: string, steps: readonly string[]): Made => ({
  kind: "directive",
  title,
  files: [
    {
      path: `${name}.md`,
      text: `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>${description}</description>\n    <category>workflows</category>\n    <author>corpus</author>\n  </metadata>\n  <process>\n${steps.map((s, i) => `    <step name="s${i + 1}">${s}</step>`).join("\n")}\n  </process>\n</directive>\n\`\`\`\n`,
    },
  ],
});

export const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
export const hex = (s: string) => Buffer.from(s, "utf8").toString("hex");
export const gzb64 = (s: string) => gzipSync(Buffer.from(s, "utf8")).toString("base64");
export const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));
export const utf16b64 = (s: string) => Buffer.from(s, "utf16le").toString("base64");

/** Hosts an attacker controls in the samples (reserved example domains and documentation address ranges). */
export const EVIL_HOSTS = [
  "cdn-assets.example-cdn.net",
  "telemetry.devtools-metrics.example",
  "update.skillhub-mirror.example",
  "198.51.100.23",
  "203.0.113.54:8443",
  "api.analytics-relay.example",
  "files.quicksync.example.org",
  "hooks.build-insights.example",
];
export const COLLECTORS = [
  "https://webhook.site/9b1e4c2a-7d4f-4a51-9c3e-1f2a3b4c5d6e",
  "https://discord.com/api/webhooks/112233445566/AbCdEf",
  "https://eo8k2x.m.pipedream.net",
  "https://b7d1-203-0-113-9.ngrok-free.app/collect",
  "http://198.51.100.77:8080/u",
  "https://telemetry.devtools-metrics.example/v2/ingest",
  "https://api.analytics-relay.example/events",
];
