/**
 * The security gate every tool execution passes (docs/security.md): the tool's declared tier (T0 safe … T4
 * critical; undeclared → T3), escalated by dangerous-pattern rules matched against the call's inputs, compared
 * with a policy: auto-approve up to a tier, deny above a tier, ask in between. Sub-threads get a stricter policy
 * than their parent: each generation below the root auto-approves one tier less.
 *
 * Pure functions: the rules and the policy are signed data the client loads (`rye/security/*` system items and
 * the project's `.ai/config/security.yaml`).
 */
import { z } from "zod";
import { RyeError } from "../errors.ts";

export const TIERS = ["T0", "T1", "T2", "T3", "T4"] as const;
export type Tier = (typeof TIERS)[number];
export const UNDECLARED_TIER: Tier = "T3";

export const tierSchema = z.enum(TIERS);
const rank = (tier: Tier) => TIERS.indexOf(tier);
const atRank = (n: number): Tier => TIERS[Math.min(TIERS.length - 1, Math.max(0, n))]!;

/** A tool's declared tier: `__tier__` (Python, JS/TS) or `tier` (YAML, shell `# @tier`); undeclared or invalid → T3. */
export function declaredTier(extras: Record<string, unknown>): { tier: Tier; declared: boolean } {
  const raw = extras.__tier__ ?? extras.tier;
  const parsed = tierSchema.safeParse(typeof raw === "string" ? raw.toUpperCase() : raw);
  return parsed.success ? { tier: parsed.data, declared: true } : { tier: UNDECLARED_TIER, declared: false };
}

export const dangerRuleSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  description: z.string().min(1).max(300),
  /** A JavaScript regular expression, matched against every string in the call's inputs. */
  pattern: z.string().min(1).max(500),
  flags: z.string().regex(/^[imsu]*$/).default("i"),
  tier: tierSchema.default("T4"),
});
export type DangerRule = z.infer<typeof dangerRuleSchema>;

export interface CompiledRule extends DangerRule {
  regex: RegExp;
}

/** Validates and compiles the rules (a bad rule is an error naming it, never silently skipped). */
export function compileRules(data: unknown): CompiledRule[] {
  const parsed = z.array(dangerRuleSchema).max(500).safeParse(data);
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `The dangerous-pattern rules are not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, {
      hint: "Each rule needs id, description and pattern (a regular expression); tier defaults to T4.",
    });
  }
  return parsed.data.map((rule) => {
    try {
      return { ...rule, regex: new RegExp(rule.pattern, rule.flags) };
    } catch (err) {
      throw new RyeError("VALIDATION_FAILED", `The dangerous-pattern rule ${rule.id} is not a valid regular expression: ${(err as Error).message}`);
    }
  });
}

/** Inputs larger than this are inspected up to it (strings are cut, the rest of the walk stops). */
export const MAX_INSPECTED_CHARS = 1_000_000;
const MAX_DEPTH = 16;

/** Every string in a value (keys too), depth- and size-bounded. */
export function inputStrings(value: unknown): string[] {
  const out: string[] = [];
  let budget = MAX_INSPECTED_CHARS;
  const walk = (v: unknown, depth: number) => {
    if (budget <= 0 || depth > MAX_DEPTH) return;
    if (typeof v === "string") {
      const s = v.length > budget ? v.slice(0, budget) : v;
      budget -= s.length;
      out.push(s);
    } else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        walk(k, depth + 1);
        walk(x, depth + 1);
      }
    }
  };
  walk(value, 0);
  return out;
}

export interface RuleMatch {
  rule: string;
  description: string;
  tier: Tier;
  /** The matched text (at most 120 characters). */
  text: string;
}

export function inspectInputs(rules: readonly CompiledRule[], inputs: unknown): RuleMatch[] {
  const matches: RuleMatch[] = [];
  const strings = inputStrings(inputs);
  for (const rule of rules) {
    for (const s of strings) {
      const m = rule.regex.exec(s);
      if (m) {
        matches.push({ rule: rule.id, description: rule.description, tier: rule.tier, text: m[0].slice(0, 120) });
        break;
      }
    }
  }
  return matches;
}

/** OS limits and isolation asked for a subprocess tool (applied by the client where the OS offers them). */
export const sandboxSpecSchema = z.object({
  /** false: no network at all. */
  network: z.boolean().optional(),
  /** "project": the project (and a private /tmp) writable, everything else read-only. */
  filesystem: z.enum(["all", "project"]).optional(),
  /** Address-space limit in MiB (Node.js tools need at least about 1024: V8 reserves address space up front). */
  memory_mb: z.number().int().min(16).max(1_048_576).optional(),
  /** CPU seconds (not wall time: that is the timeout). */
  cpu_seconds: z.number().int().min(1).max(86_400).optional(),
  /** When isolation (network/filesystem) cannot be had: refuse (true, the default) or run without it. */
  required: z.boolean().optional(),
});
export type SandboxSpec = z.infer<typeof sandboxSpecSchema>;

export const securityPolicySchema = z.object({
  /** Calls at or below this tier run without asking. */
  auto_approve_up_to: tierSchema.default("T3"),
  /** Calls above this tier are refused outright. */
  deny_above: tierSchema.default("T3"),
  /** How long a call waits for a person's approval before it is denied. */
  approval_timeout_seconds: z.number().int().min(1).max(3600).default(60),
  /** Each generation of sub-threads auto-approves this many tiers less than the one above it. */
  sub_thread_stricter_by: z.number().int().min(0).max(4).default(1),
  /** Limits and isolation imposed on every subprocess tool whose call is at or above `from_tier`. */
  sandbox: sandboxSpecSchema.extend({ from_tier: tierSchema }).optional(),
});

/** The sandbox the policy imposes on a call of this effective tier, if any. */
export function policySandbox(policy: SecurityPolicy, effectiveTier: Tier): SandboxSpec | undefined {
  if (!policy.sandbox || rank(effectiveTier) < rank(policy.sandbox.from_tier)) return undefined;
  const { from_tier: _from, ...spec } = policy.sandbox;
  return spec;
}
export type SecurityPolicy = z.infer<typeof securityPolicySchema>;

export type GateDecision = "allow" | "approve" | "deny";

export interface GateOutcome {
  decision: GateDecision;
  /** The tool's declared tier (T3 when undeclared). */
  tier: Tier;
  declared: boolean;
  /** The tier after escalation by the matched rules. */
  effective_tier: Tier;
  matches: RuleMatch[];
  /** The policy applied (after the sub-thread adjustment). */
  auto_approve_up_to: Tier;
  deny_above: Tier;
  reason: string;
}

/**
 * The decision for one call. `generation`: 0 for the user (CLI, MCP) and a root thread, 1 for its children, …
 */
export function decide(policy: SecurityPolicy, call: { tier: Tier; declared: boolean; matches: RuleMatch[]; generation?: number }): GateOutcome {
  const generation = Math.max(0, call.generation ?? 0);
  const effective = atRank(Math.max(rank(call.tier), ...call.matches.map((m) => rank(m.tier))));
  const autoUpTo = atRank(rank(policy.auto_approve_up_to) - generation * policy.sub_thread_stricter_by);
  const base = { tier: call.tier, declared: call.declared, effective_tier: effective, matches: call.matches, auto_approve_up_to: autoUpTo, deny_above: policy.deny_above };
  const why = call.matches.length > 0 ? `${call.matches.map((m) => `${m.rule} (${m.description}: "${m.text}")`).join(", ")} raised it to ${effective}` : `the tool is ${call.tier}${call.declared ? "" : " (no tier declared)"}`;
  if (rank(effective) > rank(policy.deny_above)) return { ...base, decision: "deny", reason: `${why}; the policy denies everything above ${policy.deny_above}` };
  if (rank(effective) > rank(autoUpTo)) {
    return { ...base, decision: "approve", reason: `${why}; the policy runs up to ${autoUpTo} without asking${generation > 0 ? ` (${generation} generation${generation > 1 ? "s" : ""} below the root thread)` : ""}` };
  }
  return { ...base, decision: "allow", reason: `${why}; allowed up to ${autoUpTo}` };
}
