/**
 * What never leaves a mirror in a search query: names it owns. A search is answered locally only when
 * - its namespace filter is a namespace of this registry, or
 * - a word of its query is the name of a namespace of this registry (users and organizations), or
 * - its query contains the name of an item here that is not public (private, unlisted, or held for approval).
 * Pulls and item pages never reach the mirror for a local namespace (routes check `Mirror.ownsNamespace`).
 */
import type { Database } from "@rye/db";

/** Words of a query as names are written: lowercase letters, digits, `-`, `_`, `.`. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^a-z0-9_.-]+/).filter((w) => w.length > 0))].slice(0, 64);
}

export async function namesStayLocal(db: Database, query: string, namespaceFilter: string | undefined): Promise<boolean> {
  const words = queryWords(query);
  if (namespaceFilter) words.push(namespaceFilter.toLowerCase());
  const lowered = query.toLowerCase();
  const { rows } = await db.raw.query<{ local: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM namespaces WHERE name = ANY($1::text[]))
         OR ($2 <> '' AND EXISTS (SELECT 1 FROM items WHERE (visibility <> 'public' OR held) AND position(lower(name) in $2) > 0)) AS local`,
    [words, lowered],
  );
  return rows[0]?.local === true;
}
