/**
 * Server-side syntax highlighting with shiki (JavaScript regex engine: no WASM), light and dark themes
 * at once: every token carries its light colour and a `--shiki-dark` variable that app/globals.css
 * switches to in dark mode. The result is tokens, rendered as React elements by the caller: item
 * content never reaches the page as an HTML string.
 */
import type { HighlighterCore, ThemedToken } from "shiki/core";

export const LIGHT_THEME = "github-light-default";
export const DARK_THEME = "github-dark-default";
/** Bigger files are shown without colours (tokenizing is linear but not free). */
export const HIGHLIGHT_MAX_CHARS = 200_000;

export type HighlightLang = "yaml" | "python" | "javascript" | "typescript" | "shellscript" | "markdown" | "json" | "xml" | "text";

const BY_EXTENSION: Record<string, HighlightLang> = {
  ".yaml": "yaml",
  ".yml": "yaml",
  ".py": "python",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".sh": "shellscript",
  ".bash": "shellscript",
  ".md": "markdown",
  ".json": "json",
  ".xml": "xml",
};

/** The grammar for a file extension (`.py`), `text` when there is none. */
export function langForExtension(extension: string | null | undefined): HighlightLang {
  return BY_EXTENSION[(extension ?? "").toLowerCase()] ?? "text";
}

let highlighter: Promise<HighlighterCore> | undefined;

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }] = await Promise.all([import("shiki/core"), import("shiki/engine/javascript")]);
    return createHighlighterCore({
      engine: createJavaScriptRegexEngine(),
      themes: [import("shiki/themes/github-light-default.mjs"), import("shiki/themes/github-dark-default.mjs")],
      langs: [
        import("shiki/langs/yaml.mjs"),
        import("shiki/langs/python.mjs"),
        import("shiki/langs/javascript.mjs"),
        import("shiki/langs/typescript.mjs"),
        import("shiki/langs/shellscript.mjs"),
        import("shiki/langs/markdown.mjs"),
        import("shiki/langs/json.mjs"),
        import("shiki/langs/xml.mjs"),
      ],
    });
  })();
  highlighter.catch(() => (highlighter = undefined));
  return highlighter;
}

export interface HighlightToken {
  content: string;
  /** Inline style: the light colour and the `--shiki-dark` variable (plus font style). */
  style: Record<string, string>;
}

export interface Highlighted {
  lines: HighlightToken[][];
  /** `<pre>` style: light background and foreground, `--shiki-dark-bg` / `--shiki-dark`. */
  preStyle: Record<string, string>;
  /** False when the code was too big or the grammar failed: plain text lines. */
  highlighted: boolean;
}

function styleOf(token: ThemedToken): Record<string, string> {
  const style: Record<string, string> = {};
  for (const [key, value] of Object.entries(token.htmlStyle ?? {})) if (typeof value === "string") style[key] = value;
  if (!style.color && token.color) style.color = token.color;
  return style;
}

function plain(code: string): Highlighted {
  return { lines: code.split("\n").map((line) => [{ content: line, style: {} }]), preStyle: {}, highlighted: false };
}

/** Tokenizes `code` for both themes; never throws (falls back to plain lines). */
export async function highlight(code: string, lang: HighlightLang): Promise<Highlighted> {
  const text = code.replace(/\r\n?/g, "\n").replace(/\n$/, "");
  if (lang === "text" || text.length > HIGHLIGHT_MAX_CHARS) return plain(text);
  try {
    const hl = await getHighlighter();
    const result = hl.codeToTokens(text, { lang, themes: { light: LIGHT_THEME, dark: DARK_THEME } });
    // With two themes shiki gives bg/fg as "#ffffff;--shiki-dark-bg:#0d1117": the light value, then variables.
    const preStyle: Record<string, string> = {};
    const addColors = (property: string, value: string | undefined) => {
      const [first, ...vars] = (value ?? "").split(";");
      if (first) preStyle[property] = first.trim();
      for (const decl of vars) {
        const at = decl.indexOf(":");
        if (at > 0 && decl.trim().startsWith("--shiki-")) preStyle[decl.slice(0, at).trim()] = decl.slice(at + 1).trim();
      }
    };
    addColors("backgroundColor", result.bg);
    addColors("color", result.fg);
    return { lines: result.tokens.map((line) => line.map((token) => ({ content: token.content, style: styleOf(token) }))), preStyle, highlighted: true };
  } catch {
    return plain(text);
  }
}
