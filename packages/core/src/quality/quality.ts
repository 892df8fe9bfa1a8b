/**
 * The quality score of an agent item (directive, tool, knowledge), in the manner of JSR's score: a handful of
 * factors, each worth points, each shown with whether it is met and how to meet it (docs/quality.md).
 *
 * Version factors (description, docs, inputs, signed, provenance) are fixed by a version's file and its publish,
 * so the registry computes them once at publish and stores them. Item factors (no yanked versions, recently
 * updated) change with the item's state: `no_yanks` is stored again on every yank, unyank, publish or approval;
 * `recent` depends on the clock and is computed when read. A factor that cannot apply (knowledge has no inputs)
 * leaves the total: the score is the share of applicable points earned, 0 … 100.
 */
import { z } from "zod";
import type { ParsedItem } from "../validate/item.ts";

export const QUALITY_FACTOR_IDS = ["description", "docs", "inputs", "signed", "provenance", "no_yanks", "recent"] as const;
export type QualityFactorId = (typeof QUALITY_FACTOR_IDS)[number];
export const VERSION_FACTOR_IDS = ["description", "docs", "inputs", "signed", "provenance"] as const satisfies readonly QualityFactorId[];
export type VersionFactorId = (typeof VERSION_FACTOR_IDS)[number];

/** A version counts as recent when published within this many days. */
export const QUALITY_RECENT_DAYS = 365;
/** Shortest description that counts. */
export const QUALITY_MIN_DESCRIPTION_CHARS = 10;
/** Least documentation text (beside the metadata) that counts. */
export const QUALITY_MIN_DOCS_CHARS = 40;

export const QUALITY_FACTORS: Record<QualityFactorId, { points: number; label: string; hint: string }> = {
  description: { points: 15, label: "Has a description", hint: `Give the item a description of at least ${QUALITY_MIN_DESCRIPTION_CHARS} characters (the description metadata field).` },
  docs: {
    points: 15,
    label: "Has documentation",
    hint: `Add at least ${QUALITY_MIN_DOCS_CHARS} characters of documentation: markdown around a directive's XML, a tool's docstring or leading comment, a knowledge entry's body.`,
  },
  inputs: { points: 15, label: "Inputs documented", hint: "Describe every input: a description inside each directive <input>, a description on each property of a tool's CONFIG_SCHEMA." },
  signed: { points: 20, label: "Signed by a registered key", hint: "Sign the item with your key (rye sign) and register the key with the registry (rye push does this for you)." },
  provenance: { points: 15, label: "Provenance complete", hint: "Push a signed item: the registry's attestation then names the verified author key and the transparency-log entry." },
  no_yanks: { points: 10, label: "No yanked versions", hint: "Publish versions you stand by; a yanked version counts against the item until it is unyanked (rye unyank)." },
  recent: { points: 10, label: "Recently updated", hint: `Publish a new version: the newest one is older than ${QUALITY_RECENT_DAYS} days.` },
};

export const versionFactorSchema = z.object({ met: z.boolean(), applicable: z.boolean(), detail: z.string() });
export type VersionFactor = z.infer<typeof versionFactorSchema>;
/** What the registry stores per version. */
export const versionQualitySchema = z.object({ factors: z.record(z.enum(VERSION_FACTOR_IDS), versionFactorSchema) });
export type VersionQuality = z.infer<typeof versionQualitySchema>;

export const qualityFactorSchema = z.object({
  id: z.enum(QUALITY_FACTOR_IDS),
  label: z.string(),
  points: z.number().int().meta({ description: "What the factor is worth." }),
  met: z.boolean(),
  applicable: z.boolean().meta({ description: "false: the factor does not apply to this item (it then leaves the total)." }),
  detail: z.string(),
  hint: z.string().nullable().meta({ description: "How to meet it; null when met or not applicable." }),
});
export const qualityReportSchema = z
  .object({
    score: z.number().int().min(0).max(100).meta({ description: "Share of the applicable points earned, 0 … 100." }),
    version: z.string().meta({ description: "The version the version factors are of." }),
    factors: z.array(qualityFactorSchema),
  })
  .meta({ description: "A version's quality score and every factor (docs/quality.md)." });
export type QualityReport = z.infer<typeof qualityReportSchema>;

export interface PublishSignals {
  /** The author's inline signature verified against a key registered to the publisher. */
  authorVerified: boolean;
  authorFingerprint: string | null;
  /** The publish log index the attestation names. */
  logIndex: number | null;
  /** The registry signed the attestation. */
  attested: boolean;
}

const textLength = (s: string | undefined) => (s ?? "").replace(/\s+/g, " ").trim().length;

function docsOf(parsed: ParsedItem, body: string): number {
  if (parsed.type === "directive") {
    // The markdown around the XML, without headings: what a reader gets beside the metadata.
    return textLength(`${parsed.metadata.body}\n${parsed.metadata.trailer}`.replace(/^#+\s.*$/gm, ""));
  }
  if (parsed.type === "knowledge") return textLength(parsed.metadata.body.replace(/^#+\s.*$/gm, ""));
  if (parsed.metadata.docstring !== undefined) return textLength(parsed.metadata.docstring);
  // Comments (JS/TS `//`, `/* … */`, `#`), not the shell's `# @key` metadata header.
  const comments: string[] = [];
  for (const m of body.matchAll(/\/\*([\s\S]*?)\*\//g)) comments.push(m[1]!.replace(/^\s*\*+/gm, ""));
  for (const line of body.split("\n")) {
    const t = line.trim();
    if (t.startsWith("//")) comments.push(t.slice(2));
    else if (t.startsWith("#") && !t.startsWith("#!") && !/^#\s*@\w/.test(t)) comments.push(t.slice(1));
  }
  return textLength(comments.join(" "));
}

function inputsOf(parsed: ParsedItem): VersionFactor {
  if (parsed.type === "knowledge") return { met: false, applicable: false, detail: "Knowledge takes no inputs." };
  if (parsed.type === "directive") {
    const inputs = parsed.metadata.inputs;
    if (inputs.length === 0) return { met: true, applicable: true, detail: "Takes no inputs." };
    const missing = inputs.filter((i) => textLength(i.description) === 0).map((i) => i.name || "(unnamed)");
    return missing.length === 0
      ? { met: true, applicable: true, detail: `All ${inputs.length} input${inputs.length === 1 ? " is" : "s are"} described.` }
      : { met: false, applicable: true, detail: `Not described: ${missing.slice(0, 10).join(", ")}.` };
  }
  const schema = parsed.metadata.config_schema;
  if (schema === undefined || schema === null || typeof schema !== "object") {
    // A config item (no executor) is data, not something called with parameters.
    if (parsed.metadata.executor_id === null && parsed.metadata.tool_type === "config") return { met: false, applicable: false, detail: "A config item takes no parameters." };
    return { met: false, applicable: true, detail: "No parameter schema (CONFIG_SCHEMA / config_schema)." };
  }
  const properties = (schema as { properties?: unknown }).properties;
  const entries = properties && typeof properties === "object" && !Array.isArray(properties) ? Object.entries(properties as Record<string, unknown>) : [];
  if (entries.length === 0) return { met: true, applicable: true, detail: "Takes no parameters." };
  const missing = entries.filter(([, p]) => !(p && typeof p === "object" && typeof (p as { description?: unknown }).description === "string" && textLength((p as { description: string }).description) > 0)).map(([k]) => k);
  return missing.length === 0
    ? { met: true, applicable: true, detail: `All ${entries.length} parameter${entries.length === 1 ? " is" : "s are"} described.` }
    : { met: false, applicable: true, detail: `Not described: ${missing.slice(0, 10).join(", ")}.` };
}

/** The version factors of one published file (`body`: the file without its signature line). */
export function versionQuality(parsed: ParsedItem, body: string, signals: PublishSignals): VersionQuality {
  const description = textLength(parsed.summary.description);
  const docs = docsOf(parsed, body);
  const complete = signals.attested && signals.logIndex !== null && signals.authorVerified && signals.authorFingerprint !== null;
  return {
    factors: {
      description: { met: description >= QUALITY_MIN_DESCRIPTION_CHARS, applicable: true, detail: description === 0 ? "No description." : `${description} characters.` },
      docs: { met: docs >= QUALITY_MIN_DOCS_CHARS, applicable: true, detail: docs === 0 ? "No documentation beside the metadata." : `${docs} characters of documentation.` },
      inputs: inputsOf(parsed),
      signed: signals.authorVerified
        ? { met: true, applicable: true, detail: `Signed with registered key ${signals.authorFingerprint}.` }
        : { met: false, applicable: true, detail: "Pushed unsigned: only the registry's signature is on it." },
      provenance: complete
        ? { met: true, applicable: true, detail: `Attested by the registry: author key ${signals.authorFingerprint}, log entry ${signals.logIndex}.` }
        : { met: false, applicable: true, detail: signals.logIndex === null ? "No transparency-log entry." : "The attestation names no verified author key." },
    },
  };
}

export interface ItemSignals {
  /** Published versions (approved or never held) and how many of them are yanked. */
  publishedVersions: number;
  yankedVersions: number;
  /** When the newest published version was published; null without one. */
  latestPublishedAt: Date | null;
}

function itemFactors(item: ItemSignals, now: Date): Record<"no_yanks" | "recent", VersionFactor> {
  const ageDays = item.latestPublishedAt ? Math.floor((now.getTime() - item.latestPublishedAt.getTime()) / 86_400_000) : null;
  return {
    no_yanks:
      item.publishedVersions === 0
        ? { met: false, applicable: true, detail: "No published version." }
        : item.yankedVersions === 0
          ? { met: true, applicable: true, detail: `None of ${item.publishedVersions} version${item.publishedVersions === 1 ? "" : "s"} is yanked.` }
          : { met: false, applicable: true, detail: `${item.yankedVersions} of ${item.publishedVersions} versions yanked.` },
    recent:
      ageDays === null
        ? { met: false, applicable: true, detail: "No published version." }
        : // The same test as the registry's search (QUALITY_SCORE_SQL): strictly less than QUALITY_RECENT_DAYS × 24 h ago.
          { met: now.getTime() - item.latestPublishedAt!.getTime() < QUALITY_RECENT_DAYS * 86_400_000, applicable: true, detail: ageDays === 0 ? "Published today." : `Newest version published ${ageDays} day${ageDays === 1 ? "" : "s"} ago.` },
  };
}

/** Points earned and applicable points, without `recent` (stored with the item; `recent` is added when read). */
export function storedQualityPoints(version: VersionQuality, item: Omit<ItemSignals, "latestPublishedAt">): { points: number; max: number } {
  const factors = { ...version.factors, no_yanks: itemFactors({ ...item, latestPublishedAt: null }, new Date(0)).no_yanks };
  let points = 0;
  let max = QUALITY_FACTORS.recent.points;
  for (const [id, f] of Object.entries(factors) as [QualityFactorId, VersionFactor][]) {
    if (!f.applicable) continue;
    max += QUALITY_FACTORS[id].points;
    if (f.met) points += QUALITY_FACTORS[id].points;
  }
  return { points, max };
}

/** The score as people see it, every factor listed with its hint. */
export function qualityReport(versionName: string, version: VersionQuality, item: ItemSignals, now: Date = new Date()): QualityReport {
  const all = { ...version.factors, ...itemFactors(item, now) } as Record<QualityFactorId, VersionFactor>;
  let earned = 0;
  let max = 0;
  const factors = QUALITY_FACTOR_IDS.map((id) => {
    const f = all[id];
    const { points, label, hint } = QUALITY_FACTORS[id];
    if (f.applicable) {
      max += points;
      if (f.met) earned += points;
    }
    return { id, label, points, met: f.met, applicable: f.applicable, detail: f.detail, hint: f.met || !f.applicable ? null : hint };
  });
  return { score: max === 0 ? 0 : Math.round((100 * earned) / max), version: versionName, factors };
}
