/**
 * Tool metadata, read without executing the tool:
 * - Python: module-level literal assignments (`__version__`, `__tool_type__`, `__executor_id__`,
 *   `__category__`, `__tool_description__`, `CONFIG_SCHEMA`, `ENV_CONFIG`, `CONFIG`);
 * - JavaScript/TypeScript: the same names as top-level `export const NAME = <literal>`;
 * - shell: a leading comment header of `# @key value` lines (JSON values for schemas and maps);
 * - YAML: top-level keys.
 */
import { parse as parseYaml } from "yaml";
import { RyeError } from "../errors.ts";
import { extensionOf, stemOf } from "../item-types.ts";
import { toolBody } from "../signature/line.ts";
import { shippedJsExports, shippedYamlValue } from "./shipped-readings.ts";
import { extractJsExports } from "./js-literal.ts";
import { extractPythonAssignments } from "./python-literal.ts";

export type ToolFormat = "python" | "yaml" | "javascript" | "typescript" | "shell";

export interface ParsedTool {
  format: ToolFormat;
  name: string;
  version?: unknown;
  tool_type?: unknown;
  executor_id?: unknown;
  category?: unknown;
  description?: unknown;
  config_schema?: unknown;
  env_config?: unknown;
  config?: unknown;
  /** Every other key the file declares (YAML keys, extra dunder or exported constants). */
  extras: Record<string, unknown>;
  docstring?: string;
  /** Values that could not be read (non-literal assignments and the like). */
  warnings: string[];
}

const FORMAT_BY_EXTENSION: Record<string, ToolFormat> = {
  ".py": "python",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".sh": "shell",
};

export function toolFormatOf(path: string): ToolFormat | null {
  return FORMAT_BY_EXTENSION[extensionOf(path)] ?? null;
}

/** Source names → standard metadata keys, shared by Python and JS/TS. */
const CODE_KEYS: Record<string, keyof ParsedTool> = {
  __version__: "version",
  __tool_type__: "tool_type",
  __executor_id__: "executor_id",
  __category__: "category",
  __tool_description__: "description",
  CONFIG_SCHEMA: "config_schema",
  ENV_CONFIG: "env_config",
  CONFIG: "config",
};
const STANDARD_KEYS = new Set(["version", "tool_type", "executor_id", "category", "description", "config_schema", "env_config", "config"]);
const SHELL_JSON_KEYS = new Set(["config_schema", "env_config", "config", "input_schema"]);

function fromCode(values: Record<string, unknown>, tool: ParsedTool): void {
  for (const [key, value] of Object.entries(values)) {
    const standard = CODE_KEYS[key];
    if (standard) (tool as unknown as Record<string, unknown>)[standard] = value;
    else tool.extras[key] = value;
  }
  if (tool.description === undefined && typeof values.__description__ === "string") tool.description = values.__description__;
}

function fromShellHeader(body: string, tool: ParsedTool): void {
  for (const line of body.split("\n")) {
    if (line.trim() === "") continue;
    if (!line.startsWith("#")) break;
    const m = /^#\s*@([A-Za-z_][A-Za-z0-9_]*)(?:\s+(.*))?$/.exec(line);
    if (!m) continue;
    const key = m[1]!;
    const raw = (m[2] ?? "").trim();
    let value: unknown = raw;
    if (SHELL_JSON_KEYS.has(key)) {
      try {
        value = JSON.parse(raw);
      } catch {
        tool.warnings.push(`@${key}: not valid JSON`);
        continue;
      }
    } else if (key === "executor_id" && (raw === "" || raw === "null" || raw === "none")) {
      value = null;
    }
    if (STANDARD_KEYS.has(key)) (tool as unknown as Record<string, unknown>)[key] = value;
    else tool.extras[key] = value;
  }
}

function fromYaml(body: string, tool: ParsedTool, rawContent: string): void {
  // A shipped file's value is that of its whole text, signature comment included: the same mapping (the build
  // checks these options give the same value for every shipped file).
  let data: unknown = shippedYamlValue(rawContent);
  try {
    data ??= parseYaml(body, { schema: "core", maxAliasCount: 64 });
  } catch (err) {
    throw new RyeError("PARSE_FAILED", `Invalid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new RyeError("PARSE_FAILED", "A YAML tool must be a mapping of top-level keys");
  }
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (STANDARD_KEYS.has(key)) (tool as unknown as Record<string, unknown>)[key] = value;
    else tool.extras[key] = value;
  }
}

/** Parses a tool file's metadata; `path` decides the format and gives the name (the file stem). */
export function parseTool(rawContent: string, path: string): ParsedTool {
  const format = toolFormatOf(path);
  if (!format) {
    throw new RyeError("PARSE_FAILED", `Unsupported tool file extension ${JSON.stringify(extensionOf(path))}`, {
      hint: "Tools are .py, .yaml/.yml, .js/.mjs/.cjs, .ts/.mts or .sh files.",
    });
  }
  const body = toolBody(rawContent);
  const tool: ParsedTool = { format, name: stemOf(path.replace(/\\/g, "/")), extras: {}, warnings: [] };
  switch (format) {
    case "python": {
      const { values, docstring, errors } = extractPythonAssignments(body);
      fromCode(values, tool);
      if (docstring !== undefined) tool.docstring = docstring;
      tool.warnings.push(...errors);
      break;
    }
    case "javascript":
    case "typescript": {
      // A shipped file's exports are those of its whole text, signature comment included (the build reads its body).
      const { values, errors } = shippedJsExports(rawContent) ?? extractJsExports(body);
      fromCode(values, tool);
      tool.warnings.push(...errors);
      break;
    }
    case "shell":
      fromShellHeader(body, tool);
      break;
    case "yaml":
      fromYaml(body, tool, rawContent);
      break;
  }
  return tool;
}
