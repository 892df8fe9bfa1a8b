/**
 * Directive hooks as rules the agent runtime can run (the original parsed `<hook>` into a shape its
 * runtime never matched, so directive hooks never fired):
 *
 * ```xml
 * <hooks>
 *   <hook id="style" event="thread_started"><load item_type="knowledge" item_id="acme/style/guide"/></hook>
 *   <hook id="more_retries" event="error">
 *     <condition path="classification.category" op="in" value='["transient"]'/>
 *     <control action="retry"/>
 *   </hook>
 *   <hook event="after_step">
 *     <when><any><condition path="cost.turns" op="gte" value="5"/></any></when>
 *     <execute item_type="tool" item_id="acme/notify/post"><param name="text">turn ${cost.turns}</param></execute>
 *   </hook>
 * </hooks>
 * ```
 * A condition is `<condition path op value/>` (value: JSON when it parses, else text) or `<any>`, `<all>`,
 * `<not>` around conditions, directly in the hook or inside `<when>`. The action is one primary element
 * (`execute`, `search`, `load`, `sign` with `item_type`, `item_id`, `query`, `<param name>`) or `<control
 * action="retry|fail|abort|continue|escalate"/>`. A hook that does not parse carries `error` (the runtime then
 * refuses to start the thread).
 */
import type { XmlElement } from "./xml-tree.ts";
import { deepText } from "./xml-tree.ts";

export const HOOK_EVENTS = ["thread_started", "after_step", "error", "limit"] as const;
export const CONTROL_ACTIONS = ["retry", "fail", "abort", "continue", "escalate"] as const;
const PRIMARIES = new Set(["execute", "search", "load", "sign"]);
const COMBINATORS = new Set(["any", "all", "not"]);

export type HookCondition = { path: string; op: string; value?: unknown } | { any: HookCondition[] } | { all: HookCondition[] } | { not: HookCondition };

export type HookAction =
  | { primary: "execute" | "search" | "load" | "sign"; item_type: string; item_id?: string; query?: string; params: Record<string, unknown> }
  | { control: (typeof CONTROL_ACTIONS)[number]; [key: string]: unknown };

export interface DirectiveHook {
  id: string;
  event: string;
  layer: 1;
  condition?: HookCondition;
  action?: HookAction;
  /** Why the hook could not be read. */
  error?: string;
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function parseCondition(el: XmlElement): HookCondition {
  if (el.tag === "condition") {
    if (!el.attrs.path) throw new Error("<condition> needs a path attribute");
    return { path: el.attrs.path, op: el.attrs.op ?? "eq", ...(el.attrs.value !== undefined ? { value: jsonOrText(el.attrs.value) } : {}) };
  }
  const inner = el.children.filter((c) => c.tag === "condition" || COMBINATORS.has(c.tag)).map(parseCondition);
  if (el.tag === "not") {
    if (inner.length !== 1) throw new Error("<not> holds exactly one condition");
    return { not: inner[0]! };
  }
  return el.tag === "any" ? { any: inner } : { all: inner };
}

function parseAction(el: XmlElement): HookAction {
  if (el.tag === "control") {
    const action = el.attrs.action;
    if (!(CONTROL_ACTIONS as readonly string[]).includes(action ?? "")) throw new Error(`<control action> must be one of ${CONTROL_ACTIONS.join(", ")}`);
    const { action: _ignored, ...rest } = el.attrs;
    return { control: action as (typeof CONTROL_ACTIONS)[number], ...rest };
  }
  const params: Record<string, unknown> = {};
  for (const p of el.children) {
    if (p.tag === "param" && p.attrs.name) params[p.attrs.name] = p.attrs.value ?? deepText(p);
  }
  const itemType = el.attrs.item_type ?? (el.tag === "search" ? undefined : "tool");
  if (!itemType) throw new Error(`<${el.tag}> needs an item_type`);
  if (el.tag !== "search" && !el.attrs.item_id) throw new Error(`<${el.tag}> needs an item_id`);
  return {
    primary: el.tag as "execute" | "search" | "load" | "sign",
    item_type: itemType,
    ...(el.attrs.item_id ? { item_id: el.attrs.item_id } : {}),
    ...(el.attrs.query ? { query: el.attrs.query } : {}),
    params,
  };
}

export function parseHookRule(el: XmlElement, index: number): DirectiveHook {
  const id = el.attrs.id ?? `directive_hook_${index + 1}`;
  const event = el.attrs.event ?? "";
  const hook: DirectiveHook = { id, event, layer: 1 };
  try {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) throw new Error(`event must be one of ${HOOK_EVENTS.join(", ")}`);
    const conditions = el.children.flatMap((c) => (c.tag === "when" ? c.children : [c])).filter((c) => c.tag === "condition" || COMBINATORS.has(c.tag));
    if (conditions.length === 1) hook.condition = parseCondition(conditions[0]!);
    else if (conditions.length > 1) hook.condition = { all: conditions.map(parseCondition) };
    const actions = el.children.filter((c) => c.tag === "control" || PRIMARIES.has(c.tag));
    if (actions.length !== 1) throw new Error(`a hook holds exactly one action (found ${actions.length})`);
    hook.action = parseAction(actions[0]!);
  } catch (err) {
    hook.error = `hook ${id}: ${err instanceof Error ? err.message : String(err)}`;
  }
  return hook;
}
