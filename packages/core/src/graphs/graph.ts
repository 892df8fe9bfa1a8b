/**
 * The state graph format (docs/state-graphs.md): a YAML tool with `tool_type: graph` and
 * `executor_id: rye/core/runtimes/state_graph`, whose `nodes` say what each step does and where it goes next.
 * Checked here, before any node runs: every edge names a node, every action names a valid item.
 */
import { RyeError } from "../errors.ts";
import type { ItemType } from "../item-types.ts";
import { isItemType, validateItemId } from "../item-types.ts";
import type { ParsedTool } from "../parsers/tool.ts";

export const GRAPH_RUNTIME_ID = "rye/core/runtimes/state_graph";
export const DEFAULT_MAX_STEPS = 100;
export const MAX_MAX_STEPS = 100_000;
export const DEFAULT_MAX_PARALLEL = 4;
export const MAX_MAX_PARALLEL = 64;
export const MAX_FOREACH_ITEMS = 10_000;
export const GRAPH_EVENTS = ["graph_started", "graph_resumed", "step_completed", "step_failed", "graph_completed", "graph_error"] as const;

const PRIMARIES = new Set(["execute", "load", "search"]);
const NODE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const NODE_KEYS = new Set(["action", "assign", "next", "foreach", "on_error", "return", "description"]);

export interface GraphAction {
  primary: "execute" | "load" | "search";
  item_type: ItemType;
  /** May hold `${…}` placeholders (interpolated before the capability check). */
  item_id: string;
  params: unknown;
}

export interface GraphEdge {
  if?: unknown;
  to: string;
}

export interface GraphNode {
  name: string;
  action?: GraphAction;
  assign?: Record<string, unknown>;
  next?: string | GraphEdge[];
  foreach?: { over: unknown; as: string; action: GraphAction; max_parallel: number; collect?: string };
  on_error?: string;
  hasReturn: boolean;
  return?: unknown;
}

export interface GraphHook {
  event: string;
  if?: unknown;
  action: GraphAction;
}

export interface GraphDefinition {
  id: string;
  version: string;
  start: string;
  max_steps: number;
  max_parallel: number;
  /** Capabilities the graph declares for itself; when present every action must be within them too. */
  permissions: string[] | null;
  nodes: Map<string, GraphNode>;
  hooks: GraphHook[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === "object" && !Array.isArray(v);

function intIn(value: unknown, fallback: number, min: number, max: number, where: string, issues: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    issues.push(`${where} must be an integer from ${min} to ${max}`);
    return fallback;
  }
  return value;
}

function parseAction(raw: unknown, where: string, issues: string[]): GraphAction | undefined {
  if (!isRecord(raw)) {
    issues.push(`${where} must be a mapping {primary, item_type, item_id, params}`);
    return undefined;
  }
  const primary = raw.primary ?? "execute";
  const itemType = raw.item_type ?? "tool";
  if (typeof primary !== "string" || !PRIMARIES.has(primary)) issues.push(`${where}.primary must be execute, load or search`);
  if (typeof itemType !== "string" || !isItemType(itemType)) issues.push(`${where}.item_type must be directive, tool or knowledge`);
  const itemId = raw.item_id;
  if (primary !== "search") {
    if (typeof itemId !== "string" || itemId === "") issues.push(`${where}.item_id is required`);
    else if (!itemId.includes("${") && validateItemId(itemId) !== null) issues.push(`${where}.item_id ${JSON.stringify(itemId)} is not an item id`);
  }
  if (raw.params !== undefined && !isRecord(raw.params)) issues.push(`${where}.params must be a mapping`);
  for (const key of Object.keys(raw)) if (!["primary", "item_type", "item_id", "params"].includes(key)) issues.push(`${where}.${key} is not an action key`);
  return { primary: primary as GraphAction["primary"], item_type: itemType as ItemType, item_id: typeof itemId === "string" ? itemId : "", params: raw.params ?? {} };
}

/** The graph of a parsed YAML tool; VALIDATION_FAILED listing every problem. */
export function parseGraph(tool: ParsedTool, itemId: string): GraphDefinition {
  const { graph, issues } = checkGraph(tool, itemId);
  if (!graph) {
    throw new RyeError("VALIDATION_FAILED", `Graph ${itemId} is not valid: ${issues.join("; ")}`, {
      hint: "See docs/state-graphs.md for the graph format.",
      details: issues.map((message) => ({ field: message.split(" ")[0], message })),
    });
  }
  return graph;
}

/** Every problem of a graph tool (empty when it is valid) and, when valid, the graph. Used by item validation too. */
export function checkGraph(tool: ParsedTool, itemId: string): { graph?: GraphDefinition; issues: string[] } {
  const issues: string[] = [];
  if (tool.tool_type !== "graph") issues.push(`tool_type must be graph (is ${JSON.stringify(tool.tool_type)})`);
  const config = isRecord(tool.config) ? tool.config : {};
  for (const key of Object.keys(config)) if (!["start", "max_steps", "max_parallel", "timeout"].includes(key)) issues.push(`config.${key} is not a graph setting (start, max_steps, max_parallel, timeout)`);
  // The runtime process's timeout in seconds (the subprocess primitive's setting; default 3600): a run stopped by it resumes.
  if (config.timeout !== undefined && (typeof config.timeout !== "number" || !(config.timeout > 0))) issues.push("config.timeout must be a number of seconds");
  const rawNodes = tool.extras.nodes;
  const nodes = new Map<string, GraphNode>();
  if (!isRecord(rawNodes) || Object.keys(rawNodes).length === 0) issues.push("nodes must be a mapping of node names to nodes");
  const maxParallel = intIn(config.max_parallel, DEFAULT_MAX_PARALLEL, 1, MAX_MAX_PARALLEL, "config.max_parallel", issues);
  for (const [name, raw] of Object.entries(isRecord(rawNodes) ? rawNodes : {})) {
    const where = `nodes.${name}`;
    if (!NODE_NAME.test(name)) issues.push(`${where}: node names are letters, digits, _ and - (at most 64)`);
    if (!isRecord(raw)) {
      issues.push(`${where} must be a mapping`);
      continue;
    }
    for (const key of Object.keys(raw)) if (!NODE_KEYS.has(key)) issues.push(`${where}.${key} is not a node key (action, assign, next, foreach, on_error, return)`);
    const node: GraphNode = { name, hasReturn: Object.hasOwn(raw, "return") };
    if (node.hasReturn) node.return = raw.return;
    if (raw.action !== undefined) {
      const action = parseAction(raw.action, `${where}.action`, issues);
      if (action) node.action = action;
    }
    if (raw.foreach !== undefined) {
      const f = raw.foreach;
      if (!isRecord(f)) issues.push(`${where}.foreach must be a mapping {over, as, action, max_parallel, collect}`);
      else {
        const action = parseAction(f.action, `${where}.foreach.action`, issues);
        const as = f.as ?? "item";
        if (typeof as !== "string" || !NODE_NAME.test(as) || ["state", "inputs", "result", "index", "error"].includes(as)) issues.push(`${where}.foreach.as must be a name other than state, inputs, result, index, error`);
        if (f.collect !== undefined && (typeof f.collect !== "string" || f.collect === "")) issues.push(`${where}.foreach.collect must be a state key`);
        if (f.over === undefined) issues.push(`${where}.foreach.over is required (e.g. "\${state.items}")`);
        const mp = intIn(f.max_parallel, maxParallel, 1, MAX_MAX_PARALLEL, `${where}.foreach.max_parallel`, issues);
        if (action) node.foreach = { over: f.over, as: String(as), action, max_parallel: mp, ...(typeof f.collect === "string" ? { collect: f.collect } : {}) };
      }
      if (raw.action !== undefined) issues.push(`${where} has both action and foreach: use one`);
    }
    if (raw.assign !== undefined) {
      if (!isRecord(raw.assign)) issues.push(`${where}.assign must be a mapping of state keys to values`);
      else node.assign = raw.assign;
    }
    if (raw.next !== undefined) {
      if (typeof raw.next === "string") node.next = raw.next;
      else if (Array.isArray(raw.next)) {
        const edges: GraphEdge[] = [];
        raw.next.forEach((e, i) => {
          if (!isRecord(e) || typeof e.to !== "string") issues.push(`${where}.next[${i}] must be {if: <condition>, to: <node>} or {to: <node>}`);
          else edges.push({ to: e.to, ...(e.if !== undefined ? { if: e.if } : {}) });
        });
        node.next = edges;
      } else issues.push(`${where}.next must be a node name or a list of {if, to}`);
    }
    if (raw.on_error !== undefined) {
      if (typeof raw.on_error !== "string") issues.push(`${where}.on_error must be a node name`);
      else node.on_error = raw.on_error;
    }
    if (node.hasReturn && node.next !== undefined) issues.push(`${where} has both return and next: a return ends the run`);
    nodes.set(name, node);
  }
  const start = config.start ?? tool.extras.start;
  if (typeof start !== "string" || !nodes.has(start)) issues.push(`config.start must name a node (is ${JSON.stringify(start)})`);
  for (const node of nodes.values()) {
    const targets = [...(typeof node.next === "string" ? [node.next] : (node.next ?? []).map((e) => e.to)), ...(node.on_error ? [node.on_error] : [])];
    for (const t of targets) if (!nodes.has(t)) issues.push(`nodes.${node.name} goes to ${JSON.stringify(t)}, which is not a node`);
  }
  let permissions: string[] | null = null;
  const rawPermissions = tool.extras.permissions;
  if (rawPermissions !== undefined) {
    if (!Array.isArray(rawPermissions) || rawPermissions.some((p) => typeof p !== "string")) issues.push("permissions must be a list of capability strings (rye.<primary>.<item_type>.<id pattern>)");
    else permissions = rawPermissions as string[];
  }
  const hooks: GraphHook[] = [];
  if (tool.extras.hooks !== undefined) {
    if (!Array.isArray(tool.extras.hooks)) issues.push("hooks must be a list of {event, if?, action}");
    else
      tool.extras.hooks.forEach((h, i) => {
        if (!isRecord(h) || typeof h.event !== "string" || !(GRAPH_EVENTS as readonly string[]).includes(h.event)) {
          issues.push(`hooks[${i}].event must be one of ${GRAPH_EVENTS.join(", ")}`);
          return;
        }
        const action = parseAction(h.action, `hooks[${i}].action`, issues);
        if (action) hooks.push({ event: h.event, action, ...(h.if !== undefined ? { if: h.if } : {}) });
      });
  }
  const maxSteps = intIn(config.max_steps, DEFAULT_MAX_STEPS, 1, MAX_MAX_STEPS, "config.max_steps", issues);
  if (issues.length) return { issues };
  return { graph: { id: itemId, version: String(tool.version), start: start as string, max_steps: maxSteps, max_parallel: maxParallel, permissions, nodes, hooks }, issues };
}
