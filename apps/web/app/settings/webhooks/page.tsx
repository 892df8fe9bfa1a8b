import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { SectionSkeleton } from "@/components/settings/skeleton";
import { Time } from "@/components/settings/time";
import type { MyOrg } from "@/components/settings/types";
import { badge, card, code, help } from "@/components/settings/ui";
import { RedeliverButton, WebhookActions, WebhookCreateForm } from "@/components/settings/webhook-forms";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Webhooks",
  description: "Signed HTTP callbacks for your namespaces' item events.",
  openGraph: { title: "Webhooks · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

interface Webhook {
  id: string;
  namespace: string;
  url: string;
  events: string[];
  include_private: boolean;
  active: boolean;
  created_at: string;
}

interface Delivery {
  id: string;
  event: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  redelivery_of: string | null;
  created_at: string;
}

/**
 * The webhooks page: for each namespace the signed-in person manages (their own, and organizations where they are
 * owner or admin), its webhooks with their recent deliveries, a form to add one, and ping / enable / delete /
 * redeliver. `?namespace=` picks the namespace.
 */
export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ namespace?: string }> }) {
  const session = await requireSession("/settings/webhooks");
  const { orgs } = await api<{ orgs: MyOrg[] }>("/v1/me/orgs", { session: true });
  const namespaces = [session.user.username, ...orgs.filter((o) => o.role === "owner" || o.role === "admin").map((o) => o.name)];
  const wanted = (await searchParams).namespace?.toLowerCase();
  const namespace = wanted && namespaces.includes(wanted) ? wanted : namespaces[0]!;
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Webhooks</h1>
        <p className={help}>
          The registry POSTs each publish, yank, deprecation, deletion, visibility change and transfer in a namespace to its webhooks, signed with the
          webhook&apos;s secret (<code className={code}>X-Rye-Signature</code>). Failed deliveries are retried with growing delays. Mirrors that want every
          public change read <code className={code}>GET /v1/changes</code> instead.
        </p>
      </div>
      <nav aria-label="Namespaces" className="flex flex-wrap gap-2">
        {namespaces.map((ns) => (
          <Link key={ns} href={`/settings/webhooks?namespace=${encodeURIComponent(ns)}`} aria-current={ns === namespace ? "page" : undefined} className={`${badge} aria-[current=page]:border-brand-700 aria-[current=page]:font-semibold`}>
            {ns}
          </Link>
        ))}
      </nav>
      <Suspense key={namespace} fallback={<SectionSkeleton cards={2} />}>
        <Hooks namespace={namespace} />
      </Suspense>
    </div>
  );
}

const statusText = (d: Delivery) =>
  d.status === "delivered" ? `delivered (${d.last_status_code ?? "?"}${d.last_duration_ms !== null ? `, ${d.last_duration_ms} ms` : ""})` : d.status === "failed" ? "failed" : d.attempts > 0 ? "retrying" : "queued";

async function Hooks({ namespace }: { namespace: string }) {
  const { webhooks } = await api<{ webhooks: Webhook[] }>(`/v1/namespaces/${encodeURIComponent(namespace)}/webhooks`, { session: true });
  const deliveries = await Promise.all(
    webhooks.map((h) => api<{ deliveries: Delivery[] }>(`/v1/namespaces/${encodeURIComponent(namespace)}/webhooks/${h.id}/deliveries?limit=10`, { session: true })),
  );
  return (
    <>
      <section aria-labelledby="hooks-heading" className="space-y-4">
        <h2 id="hooks-heading" className="text-lg font-semibold">
          Webhooks of {namespace}
        </h2>
        {webhooks.length === 0 ? <p className={help}>No webhooks yet.</p> : null}
        <ul className="space-y-4" aria-label={`Webhooks of ${namespace}`}>
          {webhooks.map((h, i) => (
            <li key={h.id} className={`${card} space-y-3`} aria-label={`Webhook ${h.url}`}>
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="break-all font-semibold">{h.url}</h3>
                <span className={badge}>{h.active ? "active" : "disabled"}</span>
                {h.include_private ? <span className={badge}>private items too</span> : null}
              </div>
              <p className={help}>
                Events: {h.events.join(", ")} · added <Time iso={h.created_at} />
              </p>
              <WebhookActions namespace={namespace} id={h.id} active={h.active} url={h.url} />
              <h4 className="text-sm font-semibold">Recent deliveries</h4>
              {deliveries[i]!.deliveries.length === 0 ? (
                <p className={help}>None yet.</p>
              ) : (
                <div className="overflow-x-auto">
                  <table className="w-full text-left text-sm">
                    <thead>
                      <tr className="border-b border-neutral-200 dark:border-neutral-800">
                        <th scope="col" className="py-1 pr-3 font-medium">Event</th>
                        <th scope="col" className="py-1 pr-3 font-medium">Status</th>
                        <th scope="col" className="py-1 pr-3 font-medium">Attempts</th>
                        <th scope="col" className="py-1 pr-3 font-medium">Created</th>
                        <th scope="col" className="py-1 font-medium"><span className="sr-only">Actions</span></th>
                      </tr>
                    </thead>
                    <tbody>
                      {deliveries[i]!.deliveries.map((d) => (
                        <tr key={d.id} className="border-b border-neutral-100 align-top dark:border-neutral-900" aria-label={`Delivery ${d.id}`}>
                          <td className="py-1 pr-3">{d.event}{d.redelivery_of ? " (redelivery)" : ""}</td>
                          <td className="py-1 pr-3">
                            {statusText(d)}
                            {d.last_error ? <div className="text-xs text-neutral-600 dark:text-neutral-400">{d.last_error}</div> : null}
                          </td>
                          <td className="py-1 pr-3">{d.attempts}</td>
                          <td className="py-1 pr-3"><Time iso={d.created_at} /></td>
                          <td className="py-1"><RedeliverButton namespace={namespace} id={h.id} delivery={d.id} event={d.event} /></td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="add-heading" className={`${card} space-y-4`}>
        <h2 id="add-heading" className="text-lg font-semibold">
          Add a webhook
        </h2>
        <WebhookCreateForm namespace={namespace} />
        <p className={help}>
          A receiver checks <code className={code}>X-Rye-Signature: t=&lt;unix time&gt;,v1=&lt;hex&gt;</code>: the hex is HMAC-SHA256 with the secret
          over <code className={code}>&lt;t&gt;.&lt;raw body&gt;</code>; refuse a mismatch, and a <code className={code}>t</code> more than five minutes old.
        </p>
      </section>
    </>
  );
}
