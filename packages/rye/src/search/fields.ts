/** The fields a document is indexed under, and how query field names map onto them. */

export const INDEX_FIELDS = [
  "name",
  "title",
  "description",
  "category",
  "tags",
  "content",
  "id",
  "type",
  "space",
  "version",
  "tool_type",
  "author",
] as const;
export type IndexField = (typeof INDEX_FIELDS)[number];

/** Field numbers, so per-document field data can live in a plain array. */
export const FIELD_NUMBER: Readonly<Record<IndexField, number>> = Object.fromEntries(
  INDEX_FIELDS.map((field, i) => [field, i]),
) as Record<IndexField, number>;

/** Names accepted before `:` in a query (`tag` is the query spelling of the `tags` field). */
export const QUERY_FIELDS = [
  "name",
  "title",
  "description",
  "category",
  "content",
  "type",
  "space",
  "tag",
  "id",
  "version",
  "tool_type",
  "author",
] as const;
export type QueryField = (typeof QUERY_FIELDS)[number];

export function isQueryField(value: string): value is QueryField {
  return (QUERY_FIELDS as readonly string[]).includes(value);
}

export function indexFieldOf(field: QueryField): IndexField {
  return field === "tag" ? "tags" : field;
}

/** What an unfielded term searches. Type, space, version, tool_type and author need `field:`. */
export const DEFAULT_FIELDS: readonly IndexField[] = ["name", "title", "description", "category", "tags", "content", "id"];
