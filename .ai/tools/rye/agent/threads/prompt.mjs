// rye:signed:2026-11-29T13:41:57Z:5b9fbcc14f69e9b2e8bf7fc81d1724dfbbcd9742d90c89c3a59dff03d86a25fb:6oSnF8M51z_iwihZXR3RXr6U0FgHQWqIFbKHXQLT9AOss6226Vz5g8hgCSWn40fUx9Au-ZpoyMlEVaKlhlNPBw==:334f126a02990a0c
// @ts-check
/**
 * What the model is given: the system prompt, the first message (hook context + the directive) and the four
 * tools of the original runtime, `rye_search`, `rye_load`, `rye_execute`, `rye_sign`.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: system prompt, first message and the tools offered to the model";

const ITEM_TYPE = { type: "string", enum: ["directive", "tool", "knowledge"], description: "The kind of item" };
const ITEM_ID = { type: "string", minLength: 1, maxLength: 256, description: "The item id: its path under .ai/<type folder>/ without extension, e.g. rye/file-system/fs_read" };

/** @type {{ name: string, description: string, schema: Record<string, unknown> }[]} */
export const PRIMARY_TOOLS = [
  {
    name: "rye_search",
    description: "Search for directives, tools or knowledge items by query (AND, OR, NOT, wildcards, \"phrases\", field:value).",
    schema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 256 },
        item_type: ITEM_TYPE,
        source: { type: "string", enum: ["project", "user", "system", "all"], default: "all" },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
      },
      required: ["query", "item_type"],
      additionalProperties: false,
    },
  },
  {
    name: "rye_load",
    description: "Load a directive, tool or knowledge item to read it (content, metadata, verification).",
    schema: {
      type: "object",
      properties: { item_type: ITEM_TYPE, item_id: ITEM_ID, source: { type: "string", enum: ["project", "user", "system"] } },
      required: ["item_type", "item_id"],
      additionalProperties: false,
    },
  },
  {
    name: "rye_execute",
    description:
      "Execute an item: run a tool with parameters (its CONFIG_SCHEMA), get a knowledge item, or get a directive to follow. Executing rye/agent/threads/thread_directive starts a child thread.",
    schema: {
      type: "object",
      properties: { item_type: ITEM_TYPE, item_id: ITEM_ID, parameters: { type: "object", default: {} }, dry_run: { type: "boolean", default: false } },
      required: ["item_type", "item_id"],
      additionalProperties: false,
    },
  },
  {
    name: "rye_sign",
    description: "Validate and sign an item of the project or user space with the user's key.",
    schema: {
      type: "object",
      properties: { item_type: ITEM_TYPE, item_id: ITEM_ID, source: { type: "string", enum: ["project", "user"], default: "project" } },
      required: ["item_type", "item_id"],
      additionalProperties: false,
    },
  },
];

/** The primary action of a tool name (`rye_execute` → `execute`), or undefined. */
export function primaryOf(/** @type {string} */ name) {
  const m = /^rye_(search|load|execute|sign)$/.exec(name);
  return m ? /** @type {"search"|"load"|"execute"|"sign"} */ (m[1]) : undefined;
}

/** @param {unknown} v */
const text = (v) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * The first user message: context blocks from `thread_started` hooks, the directive key, then the directive
 * itself — name, description, its markdown, the inputs given, its XML (steps, actions, outputs) with the
 * inputs applied, the actions as tool calls and the expected outputs.
 * @param {{ directive: Record<string, any>, itemId: string, inputs: Record<string, unknown>, context: { id: string, text: string }[], directiveKey: string }} args
 */
export function firstMessage({ directive, itemId, inputs, context, directiveKey }) {
  const parts = [];
  for (const block of context) parts.push(`## Context: ${block.id}\n\n${block.text.trim()}`);
  parts.push(directiveKey.trim());
  parts.push(`# ${directive.name ?? itemId}${directive.version ? ` (${directive.version})` : ""}`);
  if (directive.description) parts.push(String(directive.description).trim());
  if (directive.body) parts.push(String(directive.body).trim());
  const given = Object.entries(inputs);
  if (given.length) parts.push(`## Inputs\n\n${given.map(([k, v]) => `- ${k}: ${text(v)}`).join("\n")}`);
  if (directive.content) parts.push(`## Directive\n\n\`\`\`xml\n${String(directive.content).trim()}\n\`\`\``);
  const actions = Array.isArray(directive.actions) ? directive.actions : [];
  if (actions.length) {
    const lines = actions.map((/** @type {any} */ a, /** @type {number} */ i) => {
      const type = a.attrs?.item_type ?? "tool";
      if (a.primary === "search") return `${i + 1}. rye_search(item_type="${type}", query="${a.attrs?.query ?? a.params?.query ?? ""}")`;
      return `${i + 1}. rye_${a.primary}(item_type="${type}", item_id="${a.attrs?.item_id ?? ""}", parameters=${JSON.stringify(a.params ?? {})})`;
    });
    parts.push(`## Actions\n\n${lines.join("\n")}`);
  }
  const outputs = Array.isArray(directive.outputs) ? directive.outputs : [];
  if (outputs.length) parts.push(`## Expected output\n\n${outputs.map((/** @type {any} */ o) => `- ${o.name}${o.description ? `: ${o.description}` : ""}`).join("\n")}`);
  return parts.join("\n\n");
}
