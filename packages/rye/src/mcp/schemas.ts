/** Input schemas of the four MCP tools: names and shapes compatible with the original RYE server (rye-format §8–§9). */
import { z } from "zod";
import { ITEM_TYPES } from "@rye/core";

const itemType = z.enum(ITEM_TYPES).describe("directive | tool | knowledge");
const projectPath = z.string().min(1).max(4096).optional().describe("Project directory whose .ai/ is the project space (default: the server's working directory)");
const itemId = z.string().min(1).max(256).describe("Item id: the path under .ai/<type folder>/ without extension, e.g. rye/file-system/fs_read");

export const searchInput = {
  query: z
    .string()
    .max(1000)
    .describe('Query: words (AND), OR, NOT/-word, (groups), "phrases", wild*cards, field:value (name, title, description, category, content, type, space, tag, id, version, tool_type, author), fuzzy~ / fuzzy~2, "near words"~3. Empty matches everything.'),
  item_type: itemType.optional().describe("Restrict to one item type (default: all types)"),
  item_types: z.array(itemType).min(1).max(3).optional().describe("Restrict to several item types"),
  project_path: projectPath,
  source: z.enum(["project", "user", "system", "all"]).optional().describe("Space to search (default all)"),
  category: z.string().max(256).optional().describe("Category prefix filter, e.g. rye/core"),
  limit: z.number().int().min(1).max(100).optional().describe("Results per page (default 10)"),
  offset: z.number().int().min(0).max(100000).optional().describe("Results to skip (default 0)"),
  fuzzy: z
    .object({ enabled: z.boolean(), max_distance: z.number().int().min(1).max(3).optional() })
    .optional()
    .describe("Match every word within an edit distance"),
  scope: z
    .enum(["all", "local", "registry"])
    .optional()
    .describe("all (default): local hits first, then the registry's (space \"registry\"; load or execute one to pull, verify and pin it); local: this machine only; registry: the registry only"),
};

export const loadInput = {
  item_type: itemType,
  item_id: itemId,
  project_path: projectPath,
  source: z.enum(["project", "user", "system"]).optional().describe("Only look in this space (default: project > user > system)"),
  destination: z.enum(["project", "user"]).optional().describe("Copy the item into this space, keeping its folder path"),
  overwrite: z.boolean().optional().describe("Replace an existing file at the destination"),
};

export const executeInput = {
  item_type: itemType,
  item_id: itemId,
  project_path: projectPath,
  parameters: z.record(z.string(), z.unknown()).optional().describe("Tool parameters (validated against its config_schema) or directive inputs"),
  dry_run: z.boolean().optional().describe("Validate (resolve and verify the chain, check inputs) without running"),
};

export const signInput = {
  item_type: itemType,
  item_id: z.string().min(1).max(256).describe("Item id, or a glob relative to the type folder (*, **, ?), e.g. team/* or *"),
  project_path: projectPath,
  source: z.enum(["project", "user"]).optional().describe("Space whose file is signed (default project)"),
};
