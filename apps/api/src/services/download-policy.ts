/**
 * The one rule for what counts as a download, for items and skills alike (docs/registry-skills.md, "Download
 * counts"): a GET whose answer is a whole published version — everything a client needs to install or run it —
 * counts once, unless the caller says it only shows it (`X-Rye-Purpose: view`). So:
 *   - counts: GET /v1/pull/{type}/{id} of an item; GET /v1/skills/{ns}/{name}?files=1; a skill's .tar.gz or .zip;
 *     its SKILL.md when SKILL.md is the whole skill (one-file skills, which the discovery index lists as `skill-md`);
 *   - never counts: HEAD, 304, indexes, a skill's manifest without its files (GET /v1/skills without files=1,
 *     GET /v1/pull/skill/…), SKILL.md of a skill that has other files, versions held for approval (their reviewers'
 *     reads), a mirror's cached answer for another registry's item, and every read marked as a view.
 * The website marks all of its reads (server-side renders, the in-browser verification, file viewer, diffs) as
 * views. The mark is an opt-out: a client that sends it only keeps its own reads from counting, so it needs no
 * secret and cannot inflate anyone's count.
 */
import type { Context } from "hono";
import type { DownloadCounter } from "./download-counter.ts";

export const PURPOSE_HEADER = "x-rye-purpose";

export interface VersionRead {
  /** The version's status: only "published" versions count (pending / rejected ones are read by reviewers). */
  status: string;
  /** The answer carries the whole version, not a part of it or its metadata. */
  whole: boolean;
  /** A mirror's answer for an upstream item: it has no row here, and the upstream counted its own download. */
  mirrored?: boolean;
}

/** Whether the caller said it only shows what it reads (the website). */
export function isViewRead(c: Context): boolean {
  return isViewPurpose(c.req.header(PURPOSE_HEADER));
}

const isViewPurpose = (purpose: string | undefined) => purpose?.trim().toLowerCase() === "view";

/**
 * Whether a request (its method and X-Rye-Purpose header) reading a version is a download. Callers answer 304 before
 * asking (a revalidation is no download).
 */
export function isDownload(method: string, purpose: string | undefined, read: VersionRead): boolean {
  return method === "GET" && read.status === "published" && read.whole && read.mirrored !== true && !isViewPurpose(purpose);
}

/** isDownload for the request of `c`. */
export function countsAsDownload(c: Context, read: VersionRead): boolean {
  return isDownload(c.req.method, c.req.header(PURPOSE_HEADER), read);
}

/** Adds one download of `version` of item `itemId` when countsAsDownload says this read is one. */
export function countDownload(c: Context, downloads: DownloadCounter, itemId: string, version: string, read: VersionRead): boolean {
  if (!countsAsDownload(c, read)) return false;
  downloads.add(itemId, version);
  return true;
}
