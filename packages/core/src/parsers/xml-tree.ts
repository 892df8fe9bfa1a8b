/** A small ordered XML element tree on top of fast-xml-parser (attributes and text kept as strings). */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { RyeError } from "../errors.ts";

export interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Direct text content, space-joined. */
  text: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  preserveOrder: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
});

type RawNode = Record<string, unknown>;

function toElement(node: RawNode): XmlElement | null {
  const tag = Object.keys(node).find((k) => k !== ":@" && k !== "#text");
  if (!tag) return null;
  const attrs = (node[":@"] as Record<string, string> | undefined) ?? {};
  const rawChildren = (node[tag] as RawNode[] | undefined) ?? [];
  const children: XmlElement[] = [];
  const texts: string[] = [];
  for (const child of rawChildren) {
    if ("#text" in child) texts.push(String(child["#text"]));
    else {
      const el = toElement(child);
      if (el) children.push(el);
    }
  }
  return { tag, attrs: { ...attrs }, children, text: texts.join(" ") };
}

/** Parses one XML document; its single root element is returned. Throws PARSE_FAILED with line/col. */
export function parseXml(xml: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new RyeError("PARSE_FAILED", "XML with DOCTYPE or ENTITY declarations is not allowed");
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new RyeError("PARSE_FAILED", `Invalid XML at line ${line}, column ${col}: ${msg}`);
  }
  const roots = (parser.parse(xml) as RawNode[]).map(toElement).filter((e): e is XmlElement => e !== null && !e.tag.startsWith("?"));
  if (roots.length !== 1) throw new RyeError("PARSE_FAILED", `Expected one XML root element, found ${roots.length}`);
  return roots[0]!;
}

export function childrenNamed(el: XmlElement, tag: string): XmlElement[] {
  return el.children.filter((c) => c.tag === tag);
}

export function child(el: XmlElement, tag: string): XmlElement | undefined {
  return el.children.find((c) => c.tag === tag);
}

/** All text below an element, depth first, space-joined. */
export function deepText(el: XmlElement): string {
  return [el.text, ...el.children.map(deepText)].filter((t) => t !== "").join(" ");
}
