/** The events a webhook may subscribe to, and the limits of webhooks (explicit, and tested). */
export const WEBHOOK_EVENTS = ["publish", "yank", "unyank", "deprecate", "undeprecate", "delete", "visibility", "transfer"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_LIMITS = {
  /** Webhooks per namespace. */
  perNamespace: 20,
  urlLength: 2048,
  /** Deliveries listed per page. */
  deliveriesPage: 100,
  /** Bytes of a receiver's answer kept in the delivery log. */
  responseExcerpt: 512,
} as const;
