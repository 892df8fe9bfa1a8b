/** A file's source, syntax-highlighted on the server (lib/highlight.ts) for light and dark themes. */
import type { CSSProperties } from "react";
import { highlight, langForExtension } from "@/lib/highlight";

export async function SourceView({ content, extension, label }: { content: string; extension: string | null; label: string }) {
  const hl = await highlight(content, langForExtension(extension));
  return (
    <div className="shiki-wrap">
      {/* Focusable: a scrolling region must be reachable from the keyboard. */}
      <pre
        className={`shiki max-h-[48rem] overflow-auto ${hl.highlighted ? "" : "bg-neutral-100 dark:bg-neutral-900"}`}
        style={hl.preStyle as CSSProperties}
        tabIndex={0}
        aria-label={label}
      >
        <code>
          {hl.lines.map((line, i) => (
            <span key={i} className="line">
              {line.map((token, j) => (
                <span key={j} style={token.style as CSSProperties}>
                  {token.content}
                </span>
              ))}
              {"\n"}
            </span>
          ))}
        </code>
      </pre>
    </div>
  );
}
