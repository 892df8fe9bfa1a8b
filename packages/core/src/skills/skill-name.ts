/** The rule for an Agent Skill's name (its folder and the last segment of its registry id); no YAML needed. */
export const MAX_SKILL_NAME_LENGTH = 64;

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why `name` is not a valid skill name, or null. */
export function skillNameProblem(name: string): string | null {
  if (name.length === 0) return "must not be empty";
  if (name.length > MAX_SKILL_NAME_LENGTH) return `must be at most ${MAX_SKILL_NAME_LENGTH} characters (it has ${name.length})`;
  if (name !== name.toLowerCase()) return "must be lowercase";
  if (name.startsWith("-") || name.endsWith("-")) return "must not start or end with a hyphen";
  if (name.includes("--")) return "must not contain two hyphens in a row";
  if (!NAME.test(name)) return "may contain only the letters a-z, the digits 0-9 and hyphens";
  return null;
}
