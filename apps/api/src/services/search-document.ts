import type { Prisma } from "@rye/db";

/**
 * Refreshes an item's full-text document: name (A) > description (B) > category (C) > content (D),
 * with the 'simple' configuration so identifiers and non-English text are not stemmed away.
 */
export async function refreshSearchDocument(tx: Prisma.TransactionClient, itemId: string, content: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE items SET search_document =
      setweight(to_tsvector('simple', regexp_replace(name, '[_/.-]', ' ', 'g') || ' ' || name), 'A') ||
      setweight(to_tsvector('simple', coalesce(description, '')), 'B') ||
      setweight(to_tsvector('simple', regexp_replace(category, '[_/.-]', ' ', 'g')), 'C') ||
      setweight(to_tsvector('simple', left(${content}, 200000)), 'D')
    WHERE id = ${itemId}::uuid`;
}
