/**
 * The security gate in front of every tool execution (docs/security.md): the tool's tier, the dangerous-pattern
 * rules (the signed tool `rye/security/dangerous_patterns`) and the policy (the signed tool `rye/security/policy`,
 * overridden field by field by the project's signed `.ai/config/security.yaml`) decide allow, approve or deny.
 * Loaded once per engine; a change takes effect in the next process (the MCP server: after a restart).
 */
import type { CompiledRule, GateOutcome, SecurityPolicy } from "@rye/core";
import { configItemBody as configBody, dangerRulesFromConfig, declaredTier, decide, inspectInputs, RyeError, securityPolicySchema } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import { readConfigOverride, readVerifiedItem } from "../sdk/runtime.ts";

export interface SecuritySettings {
  rules: CompiledRule[];
  policy: SecurityPolicy;
}

const loaded = new WeakMap<EngineContext, Promise<SecuritySettings>>();

async function load(ctx: EngineContext): Promise<SecuritySettings> {
  const engine = { ctx } as Parameters<typeof readVerifiedItem>[0];
  const rulesItem = await readVerifiedItem(engine, "tool", "rye/security/dangerous_patterns");
  const rules = dangerRulesFromConfig(rulesItem.content, rulesItem.path);
  const base = configBody((await readVerifiedItem(engine, "tool", "rye/security/policy")).content, "rye/security/policy");
  const override = await readConfigOverride(engine, "security");
  const merged = { ...base, ...(override ? configBody(override.content, override.path) : {}) };
  const parsed = securityPolicySchema.safeParse(Object.fromEntries(Object.entries(merged).filter(([k]) => k in securityPolicySchema.shape)));
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `The security policy is not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, {
      hint: "Tiers are T0 … T4; see docs/security.md.",
    });
  }
  return { rules, policy: parsed.data };
}

export function securitySettings(ctx: EngineContext): Promise<SecuritySettings> {
  let settings = loaded.get(ctx);
  if (!settings) {
    settings = load(ctx);
    settings.catch(() => loaded.delete(ctx));
    loaded.set(ctx, settings);
  }
  return settings;
}

/**
 * Decides one call and throws SECURITY_DENIED or APPROVAL_REQUIRED (with the outcome in `details`) when it may not
 * run; returns the outcome when it may. `generation`: 0 for the user and a root thread, 1 for its children, …
 */
export async function gateToolCall(ctx: EngineContext, call: { toolId: string; extras: Record<string, unknown>; parameters: unknown; generation?: number; approved?: boolean }): Promise<GateOutcome> {
  const { rules, policy } = await securitySettings(ctx);
  const { tier, declared } = declaredTier(call.extras);
  const outcome = decide(policy, { tier, declared, matches: inspectInputs(rules, call.parameters), ...(call.generation !== undefined ? { generation: call.generation } : {}) });
  if (outcome.decision === "deny") {
    throw new RyeError("SECURITY_DENIED", `The security gate refused ${call.toolId}: ${outcome.reason}`, { details: { tool: call.toolId, ...outcome } });
  }
  // A person approved this very call (a prompt, MCP elicitation, `rye thread approve`): "approve" runs; "deny" never does.
  if (outcome.decision === "approve" && call.approved === true) return { ...outcome, decision: "allow", reason: `${outcome.reason}; approved by a person` };
  if (outcome.decision === "approve") {
    throw new RyeError("APPROVAL_REQUIRED", `${call.toolId} needs a person's approval: ${outcome.reason}`, {
      hint: "No one can approve it from here: ask the user to run it, or raise auto_approve_up_to in .ai/config/security.yaml (signed).",
      details: { tool: call.toolId, ...outcome, approval_timeout_seconds: policy.approval_timeout_seconds },
    });
  }
  return outcome;
}
