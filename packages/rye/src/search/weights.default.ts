/**
 * Default search ranking data. A project overrides any value in `<project>/.ai/config/search.yaml`:
 *
 *   weights:
 *     tool: { name: 6 }
 *   factors:
 *     phrase: 2
 *
 * weights: per item type, the BM25 score of each field is multiplied by its weight and the fields are
 * summed. Unfielded terms search name, title, description, category, tags, content and id; the other
 * fields (type, space, version, tool_type, author) only count when a query names them (`author:alice`).
 *
 * factors: how an approximate match scores compared with an exact one (1), and the bonus of a phrase.
 *
 * Kept as code rather than a YAML file so a search does not parse and validate it at every start; a test
 * validates it with the schema of the override files.
 */
export const DEFAULT_SEARCH_WEIGHTS = {
  weights: {
    directive: { name: 4, title: 3, description: 2, category: 1.5, tags: 1.5, content: 1, id: 1, type: 1, space: 1, version: 1, tool_type: 1, author: 1 },
    tool: { name: 4, title: 3, description: 2, category: 1.5, tags: 1.5, content: 1, id: 1, type: 1, space: 1, version: 1, tool_type: 1.5, author: 1 },
    knowledge: { name: 3, title: 4, description: 2, category: 1.5, tags: 2, content: 1, id: 1, type: 1, space: 1, version: 1, tool_type: 1, author: 1 },
  },
  factors: {
    /** "quoted phrase" of two or more words found as written */
    phrase: 1.5,
    /** tools ↔ tool */
    plural: 0.9,
    /** term~ matched a different word */
    fuzzy: 0.5,
    /** te*m matched */
    wildcard: 0.5,
  },
} as const;
