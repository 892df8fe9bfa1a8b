/** Which part of each item type the content hash covers (rye-format §3.3). */
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import type { ItemType } from "../item-types.ts";
import { pyStrip } from "../text.ts";
import { documentBody, toolBody } from "./line.ts";

const DIRECTIVE_OPEN = /<directive[^>]*>/;
const DIRECTIVE_CLOSE = "</directive>";

/**
 * The text whose SHA-256 is signed:
 * - tool: everything after the shebang and signature line, byte for byte;
 * - directive: from the first `<directive…>` to the last `</directive>`, Python-stripped;
 * - knowledge: the body after the closing `---` of the frontmatter, Python-stripped (or the whole
 *   unstripped remainder when there is no frontmatter).
 */
export function contentForHash(rawContent: string, type: ItemType): string {
  if (type === "tool") return toolBody(rawContent);
  const body = documentBody(rawContent, type);
  if (type === "directive") {
    const open = DIRECTIVE_OPEN.exec(body);
    const close = body.lastIndexOf(DIRECTIVE_CLOSE);
    if (!open || close < open.index) {
      throw new RyeError("PARSE_FAILED", "No XML directive found: the file needs a <directive …>…</directive> element");
    }
    return pyStrip(body.slice(open.index, close + DIRECTIVE_CLOSE.length));
  }
  if (body.startsWith("---")) {
    const end = body.indexOf("---", 3);
    if (end >= 0) return pyStrip(body.slice(end + 3));
  }
  return body;
}

export function computeContentHash(rawContent: string, type: ItemType): string {
  return sha256Hex(contentForHash(rawContent, type));
}
