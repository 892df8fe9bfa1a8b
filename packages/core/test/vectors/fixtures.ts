/** The fixed key and date the pinned rye vectors are signed with (never use this key for anything real). */
import { sha256Bytes } from "../../src/hash.ts";
import type { ItemType } from "../../src/item-types.ts";

export const VECTOR_SEED = sha256Bytes("rye test-vector key: never use for real signing");
export const VECTOR_DATE = new Date("2026-01-02T03:04:05Z");

export const RYE_VECTORS: { file: string; type: ItemType }[] = [
  { file: "greet_user.md", type: "directive" },
  { file: "crlf_directive.md", type: "directive" },
  { file: "item_formats.md", type: "knowledge" },
  { file: "plain_note.md", type: "knowledge" },
  { file: "unicode_edges.md", type: "knowledge" },
  { file: "read_file.py", type: "tool" },
  { file: "echo_http.yaml", type: "tool" },
  { file: "word_count.ts", type: "tool" },
  { file: "say_hi.sh", type: "tool" },
];
