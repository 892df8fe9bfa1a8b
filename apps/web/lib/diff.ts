/**
 * Unified line diff of two versions of an item (the `diff` package's Myers diff), as data the page
 * renders: hunks of numbered lines, each added, removed or context.
 */
import { structuredPatch } from "diff";

export type DiffLineKind = "add" | "remove" | "context";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** Line number in the old version (remove, context). */
  oldNumber: number | null;
  /** Line number in the new version (add, context). */
  newNumber: number | null;
}

export interface DiffHunk {
  /** `@@ -a,b +c,d @@` */
  header: string;
  lines: DiffLine[];
}

export interface LineDiff {
  hunks: DiffHunk[];
  added: number;
  removed: number;
  /** True when the two texts are equal. */
  identical: boolean;
  /** True when the diff gave up (the texts are too different for the time budget). */
  tooLarge: boolean;
}

/** Parses `1.0.0...1.1.0` (also `..`) into its two versions, or null. */
export function parseDiffRange(value: string | undefined | null): { from: string; to: string } | null {
  if (!value) return null;
  const text = value.trim();
  const parts = text.includes("...") ? text.split("...") : text.split("..");
  const version = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,255}$/;
  if (parts.length !== 2 || !parts.every((p) => version.test(p) && !p.endsWith(".")) || parts[0] === parts[1]) return null;
  return { from: parts[0]!, to: parts[1]! };
}

export const DIFF_CONTEXT_LINES = 3;
const TIMEOUT_MS = 2000;

export function lineDiff(oldText: string, newText: string, context = DIFF_CONTEXT_LINES): LineDiff {
  const a = oldText.replace(/\r\n?/g, "\n");
  const b = newText.replace(/\r\n?/g, "\n");
  if (a === b) return { hunks: [], added: 0, removed: 0, identical: true, tooLarge: false };
  const patch = structuredPatch("old", "new", a, b, undefined, undefined, { context, timeout: TIMEOUT_MS });
  if (!patch) return { hunks: [], added: 0, removed: 0, identical: false, tooLarge: true };
  let added = 0;
  let removed = 0;
  const hunks = patch.hunks.map((hunk): DiffHunk => {
    let oldNumber = hunk.oldStart;
    let newNumber = hunk.newStart;
    const lines: DiffLine[] = [];
    for (const raw of hunk.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      if (mark === "+") {
        lines.push({ kind: "add", text, oldNumber: null, newNumber: newNumber++ });
        added++;
      } else if (mark === "-") {
        lines.push({ kind: "remove", text, oldNumber: oldNumber++, newNumber: null });
        removed++;
      } else if (mark === " ") {
        lines.push({ kind: "context", text, oldNumber: oldNumber++, newNumber: newNumber++ });
      }
      // "\ No newline at end of file" markers are dropped: the line itself is shown.
    }
    return { header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, lines };
  });
  return { hunks, added, removed, identical: false, tooLarge: false };
}

/** The diff as unified-diff text (for copying or download). */
export function formatUnified(diff: LineDiff, oldLabel: string, newLabel: string): string {
  const out = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  for (const hunk of diff.hunks) {
    out.push(hunk.header);
    for (const line of hunk.lines) out.push(`${line.kind === "add" ? "+" : line.kind === "remove" ? "-" : " "}${line.text}`);
  }
  return `${out.join("\n")}\n`;
}
