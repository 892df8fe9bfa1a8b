/**
 * Item types of the registry: the local engine's three (directive, tool, knowledge — what spaces hold) plus
 * `skill`, an Agent Skill folder that only the registry and `rye skill` handle. Skill ids have two segments,
 * `namespace/name` (category ""), because a skill's name is its install folder and carries no category.
 */
import { RyeError } from "./errors.ts";
import type { RegistryItemRef } from "./item-types.ts";
import { ITEM_TYPES, parseNamespace, parseRegistryItemId } from "./item-types.ts";
import { skillNameProblem } from "./skills/skill-name.ts";

export const REGISTRY_ITEM_TYPES = [...ITEM_TYPES, "skill"] as const;
export type RegistryItemType = (typeof REGISTRY_ITEM_TYPES)[number];

export function isRegistryItemType(value: unknown): value is RegistryItemType {
  return typeof value === "string" && (REGISTRY_ITEM_TYPES as readonly string[]).includes(value);
}

/** `namespace/name` of a skill; INVALID_ITEM_ID with a hint otherwise. */
export function parseSkillId(id: unknown): RegistryItemRef {
  const text = typeof id === "string" ? id : "";
  const segments = text.split("/");
  if (segments.length !== 2) {
    throw new RyeError("INVALID_ITEM_ID", `Skill id ${JSON.stringify(id)} must be namespace/name`, { hint: "Use e.g. alice/pdf-tools (a skill has no category)." });
  }
  const namespace = parseNamespace(segments[0]!);
  const name = segments[1]!;
  const nameProblem = skillNameProblem(name);
  if (nameProblem) throw new RyeError("INVALID_ITEM_ID", `Invalid skill name ${JSON.stringify(name)}: ${nameProblem}`);
  return { namespace, category: "", name, id: `${namespace}/${name}` };
}

/** The registry id of an item of `type`: two segments for skills, at least three for every other type. */
export function parseRegistryRef(type: RegistryItemType, id: unknown): RegistryItemRef {
  return type === "skill" ? parseSkillId(id) : parseRegistryItemId(id);
}

/** `namespace/category/name`, or `namespace/name` when the category is empty (skills). */
export function registryIdOf(namespace: string, category: string, name: string): string {
  return category ? `${namespace}/${category}/${name}` : `${namespace}/${name}`;
}
