/** Directive files: markdown with one ```xml fence holding a `<directive>` element (rye-format §2.1). */
import { RyeError } from "../errors.ts";
import { documentBody } from "../signature/line.ts";
import type { DirectiveHook } from "./hooks.ts";
import { parseHookRule } from "./hooks.ts";
import type { XmlElement } from "./xml-tree.ts";
import { child, childrenNamed, deepText, parseXml } from "./xml-tree.ts";

export interface DirectiveInput {
  name: string;
  type: string;
  required: boolean;
  description: string;
  default?: string;
}

export interface DirectiveAction {
  primary: "execute" | "search" | "load" | "sign";
  attrs: Record<string, string>;
  params: Record<string, string>;
}

export interface DirectivePermission {
  primary: string;
  itemType?: string;
  pattern: string;
}

export interface ParsedDirective {
  name?: string;
  version?: string;
  description?: string;
  category?: string;
  author?: string;
  model?: Record<string, string>;
  limits?: Record<string, number | string>;
  permissions: DirectivePermission[];
  capabilities: string[];
  inputs: DirectiveInput[];
  outputs: { name: string; description: string }[];
  hooks: Record<string, unknown>[];
  /** `<hooks>` as rules the agent runtime runs (see hooks.ts). */
  hook_rules: DirectiveHook[];
  actions: DirectiveAction[];
  /** Other simple `<metadata>` children, as text. */
  extra: Record<string, string>;
  /** Markdown before the xml fence. */
  body: string;
  /** The XML text inside the fence. */
  content: string;
  /** Markdown after the closing fence. */
  trailer: string;
  /** Inner text of masked `<template>`, `<example>` and `<raw>` sections. */
  templates: { tag: string; attrs: string; content: string }[];
}

const FENCE_OPEN = /^```xml[ \t]*$/m;
const FENCE_CLOSE = /^```[ \t]*$/m;
// A self-closing `<template …/>` is not an opening tag: it must not swallow text up to a later `</template>`.
const MASKED = /<(template|example|raw)(\s[^>]*?)?(?<!\/)>([\s\S]*?)<\/\1>/g;
const ACTION_TAGS = new Set(["execute", "search", "load", "sign"]);
const PERMISSION_PRIMARIES = new Set(["execute", "search", "load", "sign"]);
const PERMISSION_TYPES = new Set(["tool", "directive", "knowledge"]);
const LIMIT_STRING_KEYS = new Set(["spend_currency"]);
const EMPTY: XmlElement = { tag: "", attrs: {}, children: [], text: "" };

export function splitDirectiveMarkdown(rawContent: string): { body: string; xml: string; trailer: string } {
  const text = documentBody(rawContent, "directive");
  const open = FENCE_OPEN.exec(text);
  if (!open) throw new RyeError("PARSE_FAILED", "No XML code block found: a directive needs a ```xml fence");
  const start = open.index + open[0].length + 1;
  const rest = text.slice(start);
  const close = FENCE_CLOSE.exec(rest);
  if (!close) throw new RyeError("PARSE_FAILED", "The ```xml fence is never closed");
  return { body: text.slice(0, open.index).trim(), xml: rest.slice(0, close.index), trailer: rest.slice(close.index + close[0].length).trim() };
}

/** `<limits turns="8" spend="0.5"/>`, or the same as child elements (`<turns>8</turns>`); attributes win. */
function parseLimits(el: XmlElement): Record<string, number | string> {
  const limits: Record<string, number | string> = {};
  const entries: [string, string][] = [...el.children.filter((c) => c.children.length === 0).map((c): [string, string] => [c.tag, c.text]), ...Object.entries(el.attrs)];
  for (const [key, value] of entries) {
    const n = value.includes(".") ? Number.parseFloat(value) : Number.parseInt(value, 10);
    limits[key] = LIMIT_STRING_KEYS.has(key) || !/^-?\d+(\.\d+)?$/.test(value.trim()) || Number.isNaN(n) ? value : n;
  }
  return limits;
}

/** `<permissions>` → `rye.<primary>.<type>.<pattern>` capability strings (rye-format §11). */
export function permissionsToCapabilities(el: XmlElement | undefined): { permissions: DirectivePermission[]; capabilities: string[] } {
  const permissions: DirectivePermission[] = [];
  const capabilities: string[] = [];
  if (!el) return { permissions, capabilities };
  if (el.text.trim() === "*") {
    permissions.push({ primary: "*", pattern: "*" });
    capabilities.push("rye.*");
  }
  for (const primary of el.children) {
    if (!PERMISSION_PRIMARIES.has(primary.tag)) continue;
    const text = primary.text.trim();
    if (text === "*") {
      permissions.push({ primary: primary.tag, pattern: "*" });
      capabilities.push(`rye.${primary.tag}.*`);
    } else if (PERMISSION_TYPES.has(text)) {
      // `<search>tool</search>`: every item of that type.
      permissions.push({ primary: primary.tag, itemType: text, pattern: "*" });
      capabilities.push(`rye.${primary.tag}.${text}`);
    }
    for (const typed of primary.children) {
      if (!PERMISSION_TYPES.has(typed.tag)) continue;
      const pattern = typed.text.trim();
      if (!pattern) continue;
      permissions.push({ primary: primary.tag, itemType: typed.tag, pattern });
      capabilities.push(`rye.${primary.tag}.${typed.tag}.${pattern}`);
    }
  }
  return { permissions, capabilities: [...new Set(capabilities)] };
}

function parseHook(el: XmlElement): Record<string, unknown> {
  const hook: Record<string, unknown> = { ...el.attrs };
  if (el.text) hook.content = el.text;
  for (const c of el.children) {
    if (c.tag === "inputs") {
      const inputs: Record<string, string> = {};
      for (const i of c.children) inputs[i.attrs.name ?? i.tag] = deepText(i);
      hook.inputs = inputs;
    } else {
      hook[c.tag] = deepText(c);
    }
  }
  return hook;
}

function collectActions(el: XmlElement, out: DirectiveAction[]): void {
  for (const c of el.children) {
    if (c.tag === "metadata" || c.tag === "permissions") continue;
    if (ACTION_TAGS.has(c.tag)) {
      const params: Record<string, string> = {};
      for (const p of childrenNamed(c, "param")) {
        if (p.attrs.name) params[p.attrs.name] = p.attrs.value ?? deepText(p);
      }
      out.push({ primary: c.tag as DirectiveAction["primary"], attrs: { ...c.attrs }, params });
    }
    collectActions(c, out);
  }
}

export function parseDirective(rawContent: string): ParsedDirective {
  const { body, xml, trailer } = splitDirectiveMarkdown(rawContent);
  const templates: ParsedDirective["templates"] = [];
  const masked = xml.replace(MASKED, (_m, tag: string, attrs: string | undefined, inner: string) => {
    templates.push({ tag, attrs: (attrs ?? "").trim(), content: inner });
    return `<${tag}${attrs ?? ""}/>`;
  });
  const root = parseXml(masked);
  if (root.tag !== "directive") throw new RyeError("PARSE_FAILED", `The XML root must be <directive>, found <${root.tag}>`);

  const metadata = child(root, "metadata");
  const parsed: ParsedDirective = {
    permissions: [],
    capabilities: [],
    inputs: [],
    outputs: [],
    hooks: [],
    hook_rules: [],
    actions: [],
    extra: {},
    body,
    content: xml,
    trailer,
    templates,
  };
  if (root.attrs.name !== undefined) parsed.name = root.attrs.name;
  if (root.attrs.version !== undefined) parsed.version = root.attrs.version;
  const rootDescription = child(root, "description");
  if (rootDescription) parsed.description = deepText(rootDescription);

  for (const el of metadata?.children ?? []) {
    switch (el.tag) {
      case "description":
      case "category":
      case "author":
        parsed[el.tag] = deepText(el);
        break;
      case "model":
      case "model_class":
        parsed.model = { ...el.attrs, ...(el.text ? { content: el.text } : {}) };
        break;
      case "limits":
        parsed.limits = parseLimits(el);
        break;
      case "hooks":
        parsed.hooks = childrenNamed(el, "hook").map(parseHook);
        parsed.hook_rules = childrenNamed(el, "hook").map(parseHookRule);
        break;
      case "permissions":
        break;
      default:
        if (el.children.length === 0) parsed.extra[el.tag] = el.text;
    }
  }
  const permissionsEl = child(metadata ?? root, "permissions") ?? child(root, "permissions");
  Object.assign(parsed, permissionsToCapabilities(permissionsEl));

  for (const input of childrenNamed(child(root, "inputs") ?? EMPTY, "input")) {
    const entry: DirectiveInput = {
      name: input.attrs.name ?? "",
      type: input.attrs.type ?? "string",
      required: (input.attrs.required ?? "").toLowerCase() === "true",
      description: deepText(input),
    };
    if (input.attrs.default !== undefined) entry.default = input.attrs.default;
    parsed.inputs.push(entry);
  }
  for (const output of childrenNamed(child(root, "outputs") ?? EMPTY, "output")) {
    parsed.outputs.push({ name: output.attrs.name ?? "", description: deepText(output) });
  }
  collectActions(root, parsed.actions);
  return parsed;
}
