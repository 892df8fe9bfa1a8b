/** Item markdown is never rendered as HTML: hostile content comes out as text or not at all. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MarkdownView, safeUrl } from "./markdown.tsx";

const render = (source: string) => renderToStaticMarkup(createElement(MarkdownView, { source }));

test("basic markdown and GFM render", () => {
  const html = render("# Title\n\nSome **bold** text and a [link](https://example.com/x).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
  assert.match(html, /<h2>Title<\/h2>/, "headings are demoted: the page title is the only h1");
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<a href="https:\/\/example.com\/x" rel="nofollow ugc noopener noreferrer">link<\/a>/);
  assert.match(html, /<table>/);
});

test("raw HTML in item content never becomes elements", () => {
  const hostile = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    '<a href="javascript:alert(3)">click</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<div onclick="alert(4)">div</div>',
    "<style>body{display:none}</style>",
    '<svg><script>alert(5)</script></svg>',
    "Inline <b onmouseover=alert(6)>bold</b> text",
  ].join("\n\n");
  const html = render(hostile);
  for (const forbidden of [/<script/i, /<img/i, /<iframe/i, /<style/i, /<svg/i, /<b[ >]/i, /onerror/i, /onclick/i, /onmouseover/i, /javascript:/i, /<div[^>]*onclick/i, /<div>div/i]) {
    assert.doesNotMatch(html, forbidden, `${forbidden} in ${html}`);
  }
  assert.match(html, /Inline\s+bold\s+text|Inline .*text/, "the surrounding text stays");
});

test("javascript:, vbscript: and data: URLs in markdown links and images are neutralized", () => {
  const html = render([
    "[a](javascript:alert(1))",
    "[b](JaVaScRiPt:alert(1))",
    "[c](  javascript:alert(1))",
    "[d](vbscript:msgbox(1))",
    "[e](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![f](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[g](java&#x09;script:alert(1))",
  ].join("\n\n"));
  assert.doesNotMatch(html, /<a[\s>]/i, "no link at all");
  assert.doesNotMatch(html, /href=|src=/i, html);
  assert.doesNotMatch(html, /<img/i);
  for (const text of ["a", "b", "c", "d", "e"]) assert.match(html, new RegExp(`<span>${text}</span>`), `${text} stays as text, not a link`);
});

test("images are links, not loaded; relative and https links stay", () => {
  const html = render("![diagram](https://img.example/x.png)\n\n[docs](/knowledge/rye/rye/core/item-formats)\n\n[mail](mailto:a@example.com)");
  assert.doesNotMatch(html, /<img/i);
  assert.match(html, /<a href="https:\/\/img.example\/x.png" rel="nofollow ugc noopener noreferrer">\[Image: diagram\]<\/a>/);
  assert.match(html, /<a href="\/knowledge\/rye\/rye\/core\/item-formats">docs<\/a>/, "same-site links carry no rel");
  assert.match(html, /href="mailto:a@example.com"/);
});

test("task lists are text, not unlabeled checkboxes", () => {
  const html = render("- [x] done thing\n- [ ] open thing\n");
  assert.doesNotMatch(html, /<input/i);
  assert.match(html, /done:/);
  assert.match(html, /to do:/);
});

test("safeUrl keeps safe protocols only", () => {
  assert.equal(safeUrl("https://example.com"), "https://example.com");
  assert.equal(safeUrl("/a/b"), "/a/b");
  assert.equal(safeUrl("#section"), "#section");
  assert.equal(safeUrl("javascript:alert(1)"), "");
  assert.equal(safeUrl(" javascript:alert(1)"), "");
  assert.equal(safeUrl("data:text/html,x"), "");
});
