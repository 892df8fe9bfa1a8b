"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { buttonDangerOutline, buttonPrimary, buttonSecondary, code, help, input, labelText } from "./ui";

const EVENTS = ["publish", "yank", "unyank", "deprecate", "undeprecate", "delete", "visibility", "transfer"] as const;
type Problem = { message: string; hint?: string | undefined } | null;
const hooksPath = (namespace: string) => `/v1/namespaces/${encodeURIComponent(namespace)}/webhooks`;

/** One API call with the session's CSRF token; the registry's refusal is shown, success refreshes the page. */
function useCall() {
  const router = useRouter();
  const [problem, setProblem] = useState<Problem>(null);
  const [pending, startTransition] = useTransition();
  const run = <T,>(path: string, init: { method: "POST" | "PATCH" | "DELETE"; body?: unknown }, then?: (answer: T) => void) =>
    startTransition(async () => {
      setProblem(null);
      try {
        const answer = await clientApi<T>(path, init);
        then?.(answer);
        router.refresh();
      } catch (err) {
        const e = ClientApiError.from(err);
        setProblem({ message: e.message, hint: e.hint });
      }
    });
  return { run, problem, pending };
}

/** Adds a webhook (POST …/webhooks) and shows its secret once. */
export function WebhookCreateForm({ namespace }: { namespace: string }) {
  const { run, problem, pending } = useCall();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  const [includePrivate, setIncludePrivate] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const urlId = useId();
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        run<{ secret: string }>(hooksPath(namespace), { method: "POST", body: { url: url.trim(), events, include_private: includePrivate } }, (answer) => {
          setSecret(answer.secret);
          setUrl("");
        });
      }}
    >
      <div className="space-y-1">
        <label htmlFor={urlId} className={labelText}>
          Payload URL
        </label>
        <input id={urlId} className={input} type="url" required maxLength={2048} placeholder="https://hooks.example.com/rye" value={url} onChange={(e) => setUrl(e.target.value)} />
      </div>
      <fieldset className="space-y-1">
        <legend className={labelText}>Events</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {EVENTS.map((e) => (
            <label key={e} className="inline-flex items-center gap-1 text-sm">
              <input type="checkbox" checked={events.includes(e)} onChange={(ev) => setEvents(ev.target.checked ? [...events, e] : events.filter((x) => x !== e))} />
              {e}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="inline-flex items-center gap-2 text-sm">
        <input type="checkbox" checked={includePrivate} onChange={(e) => setIncludePrivate(e.target.checked)} />
        Also send the events of private items
      </label>
      <div>
        <button type="submit" className={buttonPrimary} disabled={pending || events.length === 0}>
          {pending ? "Adding…" : "Add webhook"}
        </button>
      </div>
      <div aria-live="polite">
        {problem ? <ProblemBox problem={problem} /> : null}
        {secret ? (
          <div role="status" className="space-y-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950">
            <p className="font-medium">Signing secret — copy it now, it is not shown again:</p>
            <code className={`${code} block break-all`} aria-label="Signing secret">
              {secret}
            </code>
          </div>
        ) : null}
      </div>
    </form>
  );
}

/** Ping, enable / disable and delete one webhook. */
export function WebhookActions({ namespace, id, active, url }: { namespace: string; id: string; active: boolean; url: string }) {
  const { run, problem, pending } = useCall();
  const [confirming, setConfirming] = useState(false);
  const path = `${hooksPath(namespace)}/${id}`;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonSecondary} disabled={pending} aria-label={`Ping ${url}`} onClick={() => run(`${path}/ping`, { method: "POST" })}>
          Ping
        </button>
        <button type="button" className={buttonSecondary} disabled={pending} onClick={() => run(path, { method: "PATCH", body: { active: !active } })}>
          {active ? "Disable" : "Enable"}
        </button>
        {confirming ? (
          <>
            <button type="button" className={buttonDangerOutline} disabled={pending} onClick={() => run(path, { method: "DELETE" })}>
              Delete for good
            </button>
            <button type="button" className={buttonSecondary} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className={buttonDangerOutline} disabled={pending} onClick={() => setConfirming(true)}>
            Delete…
          </button>
        )}
      </div>
      {!active ? <p className={help}>Disabled: new events are not queued, and queued deliveries fail.</p> : null}
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
    </div>
  );
}

/** Sends one delivery's payload again (a new delivery). */
export function RedeliverButton({ namespace, id, delivery, event }: { namespace: string; id: string; delivery: string; event: string }) {
  const { run, problem, pending } = useCall();
  return (
    <div>
      <button type="button" className={buttonSecondary} disabled={pending} aria-label={`Redeliver ${event} delivery ${delivery}`} onClick={() => run(`${hooksPath(namespace)}/${id}/deliveries/${delivery}/redeliver`, { method: "POST" })}>
        {pending ? "Queuing…" : "Redeliver"}
      </button>
      {problem ? <ProblemBox problem={problem} /> : null}
    </div>
  );
}
