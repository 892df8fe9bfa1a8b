#!/usr/bin/env node
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
