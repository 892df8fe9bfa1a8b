/**
 * Every change to the state of an item or bundle is one event, recorded inside the caller's transaction: appended
 * to the public publish log (only a digest of the subject when it is private or held, see publishLogPayload) and
 * queued for the namespace's webhooks. The changes feed (GET /v1/changes) is the log read back, so mirrors and
 * webhook receivers see the same events in the same order.
 */
import type { Prisma } from "@rye/db";
import type { LoggedCredential } from "../auth/credential.ts";
import { type AppendedEntry, appendLogEntry, publishLogPayload } from "./publish-log.ts";
import { enqueueWebhookDeliveries } from "./webhooks/enqueue.ts";

/** Log entry kinds; `approve` makes a held version public, so feeds and webhooks present it as a publish. */
export const ITEM_EVENT_KINDS = ["publish", "approve", "yank", "unyank", "deprecate", "undeprecate", "delete", "visibility", "transfer"] as const;
export type ItemEventKind = (typeof ITEM_EVENT_KINDS)[number];

export interface ItemEvent {
  kind: ItemEventKind;
  namespaceId: string;
  /** A transfer is announced to the receiving namespace's webhooks too. */
  alsoNotifyNamespaceId?: string;
  /** The subject's visibility at the time of the event; "private" logs a digest and limits webhooks to opted-in ones. */
  visibility: string;
  /** A held (unapproved) version: logged as a digest, and nothing is announced until it is approved. */
  held?: boolean;
  subject: Record<string, unknown>;
  /**
   * Who published with what (publishes and approvals): the author key fingerprint (null: unsigned) and the credential
   * (auth/credential.ts). Logged next to a public subject only; not part of the private digest nor of webhook data.
   */
  attribution?: { author_key: string | null; credential?: LoggedCredential };
}

export async function recordItemEvent(tx: Prisma.TransactionClient, event: ItemEvent): Promise<AppendedEntry> {
  const hidden = event.held ? "private" : event.visibility;
  const entry = await appendLogEntry(tx, event.kind, publishLogPayload(hidden, event.subject, event.attribution));
  if (event.held) return entry;
  for (const namespaceId of new Set([event.namespaceId, event.alsoNotifyNamespaceId ?? event.namespaceId])) {
    await enqueueWebhookDeliveries(tx, {
      namespaceId,
      event: event.kind === "approve" ? "publish" : event.kind,
      logIndex: entry.index,
      isPrivate: event.visibility === "private",
      data: event.subject,
    });
  }
  return entry;
}
