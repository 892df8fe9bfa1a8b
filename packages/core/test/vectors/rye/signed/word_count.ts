#!/usr/bin/env node
// rye:signed:2026-01-02T03:04:05Z:92affc770c716e258a88b95a15c57e7be19368e05de3e39478c9151242c22059:oAyVn_ZhTuI-HLRSSheHrH45hI3716zgWRaEMjXvE7OqoC_G7SSpHDBkg9gGoEL00L1pd_gQyAojoFFRJtKqDw==:75ac72533c07989d
export const __version__ = "2.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __category__ = "demo";
export const __tool_description__ = "Count the words of a text";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
};

export function main(params: { text: string }): { words: number } {
  return { words: params.text.split(/\s+/).filter(Boolean).length };
}
