/**
 * A username for an account created through an identity provider: the first hint (preferred_username,
 * GitHub login, email local part, name) that — made valid by the rules of usernames.ts — is free as a
 * username and as a namespace name (users and organizations share the namespace space); else the
 * hint with `-2` … `-9`, else with a random suffix.
 */
import { randomBytes } from "node:crypto";
import type { Prisma } from "@rye/db";
import { NAME_MAX_LENGTH, nameProblems } from "../usernames.ts";

type Tx = Pick<Prisma.TransactionClient, "user" | "namespace">;

/** A hint reduced to lowercase letters, digits and single inner hyphens ("" when nothing is left). */
export function slugify(hint: string): string {
  return hint
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, NAME_MAX_LENGTH)
    .replace(/-+$/, "");
}

function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, NAME_MAX_LENGTH - suffix.length - 1).replace(/-+$/, "")}-${suffix}`;
}

function candidates(hints: string[]): string[] {
  const bases = [...new Set(hints.map(slugify).filter((s) => s.length > 0))];
  const list = bases.filter((b) => nameProblems(b).length === 0);
  for (const base of bases) for (let n = 2; n <= 9; n++) list.push(withSuffix(base, String(n)));
  return [...new Set(list)].filter((name) => nameProblems(name).length === 0);
}

async function freeAmong(tx: Tx, names: string[]): Promise<string | undefined> {
  if (names.length === 0) return undefined;
  const [users, namespaces] = await Promise.all([
    tx.user.findMany({ where: { username: { in: names } }, select: { username: true } }),
    tx.namespace.findMany({ where: { name: { in: names } }, select: { name: true } }),
  ]);
  const taken = new Set([...users.map((u) => u.username), ...namespaces.map((n) => n.name)]);
  return names.find((name) => !taken.has(name));
}

export async function suggestUsername(tx: Tx, hints: string[]): Promise<string> {
  const free = await freeAmong(tx, candidates(hints));
  if (free) return free;
  const base = hints.map(slugify).find((s) => s.length >= 2) ?? "user";
  for (;;) {
    const name = withSuffix(base, randomBytes(3).toString("hex"));
    if (nameProblems(name).length === 0 && (await freeAmong(tx, [name]))) return name;
  }
}
