/* @jsxRuntime automatic */ // (Node's test runner compiles this file with tsx, which reads no Next tsconfig)
/**
 * Item markdown (directive and knowledge bodies) as React elements: react-markdown + GitHub-flavoured
 * markdown, and never raw HTML. Item content is written by anyone who can publish, so:
 * - HTML in the markdown is dropped (`skipHtml`; there is no rehype-raw), so `<script>`, `<img onerror>`
 *   and friends never become elements;
 * - URLs go through react-markdown's safe transform (http, https, mailto, relative; `javascript:`,
 *   `data:` and the like become empty), and links to other sites get rel="nofollow ugc noopener";
 * - images are shown as links, not loaded: a page view must not call third-party servers;
 * - headings are demoted one level (the page's own title is the only h1), task-list checkboxes are
 *   text (no unlabeled form controls).
 */
import type { ComponentPropsWithoutRef, ReactNode } from "react";
import Markdown, { type Components, defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";

/** Safe URL or "" (react-markdown's allow-list of protocols). */
export function safeUrl(url: string): string {
  return defaultUrlTransform(url.trim());
}

const isExternal = (href: string) => /^(?:https?:)?\/\//i.test(href);

type Props<T extends keyof React.JSX.IntrinsicElements> = ComponentPropsWithoutRef<T> & { node?: unknown };

function heading(Tag: "h2" | "h3" | "h4" | "h5" | "h6") {
  return function Heading({ node: _node, ...props }: Props<"h1">) {
    return <Tag {...props} />;
  };
}

const components: Components = {
  h1: heading("h2"),
  h2: heading("h3"),
  h3: heading("h4"),
  h4: heading("h5"),
  h5: heading("h6"),
  h6: heading("h6"),
  a({ node: _node, href, children, ...props }: Props<"a">) {
    const target = href ? safeUrl(href) : "";
    if (!target) return <span>{children}</span>;
    return (
      <a {...props} href={target} {...(isExternal(target) ? { rel: "nofollow ugc noopener noreferrer" } : {})}>
        {children}
      </a>
    );
  },
  img({ src, alt }: Props<"img">) {
    const target = typeof src === "string" ? safeUrl(src) : "";
    const text = alt ? `Image: ${alt}` : "Image";
    if (!target) return <span>[{text}]</span>;
    return (
      <a href={target} rel="nofollow ugc noopener noreferrer">
        [{text}]
      </a>
    );
  },
  input({ type, checked }: Props<"input">) {
    if (type !== "checkbox") return null;
    return (
      <span>
        <span aria-hidden="true">{checked ? "☑" : "☐"}</span>
        <span className="sr-only">{checked ? "done:" : "to do:"}</span>{" "}
      </span>
    );
  },
};

export function MarkdownView({ source, className }: { source: string; className?: string }): ReactNode {
  return (
    <div className={`prose-rye break-words ${className ?? ""}`}>
      <Markdown remarkPlugins={[remarkGfm]} components={components} skipHtml urlTransform={safeUrl}>
        {source}
      </Markdown>
    </div>
  );
}
