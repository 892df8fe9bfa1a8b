"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { type ItemDetails, parseRegistryItemId } from "@rye/core";
import { clientApi, setCsrfToken } from "@/lib/client-api";
import { ErrorBox, type Problem, problemOf } from "../publish/error-box";
import { buttonDanger, buttonPrimary, buttonSecondary, card, help, input, label, link } from "../publish/ui";
import { ConfirmDialog } from "./confirm-dialog";

/** services/manage.ts DELETE_WINDOW_HOURS: a version may be deleted while younger than this and never downloaded. */
export const DELETE_WINDOW_HOURS = 72;

type Visibility = ItemDetails["visibility"];

type Pending =
  | { kind: "visibility"; to: Visibility }
  | { kind: "yank"; version: string }
  | { kind: "delete"; version: string | null }
  | { kind: "transfer"; to: string };

type Outcome = { kind: "ok"; message: string } | { kind: "error"; problem: Problem; action: string } | null;

const VISIBILITY_TEXT: Record<Visibility, string> = {
  public: "Public — listed in search, anyone can pull it",
  unlisted: "Unlisted — anyone with the id can pull it; not in search",
  private: "Private — only members of the namespace can see and pull it",
};

function deletableUntil(createdAt: string): Date {
  return new Date(Date.parse(createdAt) + DELETE_WINDOW_HOURS * 3600_000);
}

/** The owner/admin controls of one item: visibility, yank/unyank, deprecation, transfer and deletion. */
export function ManagePanel({ item, transferTargets, csrfToken }: { item: ItemDetails; transferTargets: string[]; csrfToken: string }) {
  const router = useRouter();
  const ids = { visibility: useId(), message: useId(), replacement: useId(), reason: useId(), target: useId() };
  const base = `${item.item_type}/${item.item_id}`;
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [visibility, setVisibility] = useState<Visibility>(item.visibility);
  const [yankReason, setYankReason] = useState("");
  const [deprecation, setDeprecation] = useState("");
  const [replacement, setReplacement] = useState("");
  const [replacementProblem, setReplacementProblem] = useState<string | null>(null);
  const [target, setTarget] = useState(transferTargets[0] ?? "");
  const [gone, setGone] = useState(false);
  const now = Date.now();

  async function run(action: string, call: () => Promise<unknown>, success: string, after?: () => void) {
    setCsrfToken(csrfToken);
    setBusy(true);
    setOutcome(null);
    try {
      await call();
      setOutcome({ kind: "ok", message: success });
      (after ?? (() => router.refresh()))();
    } catch (err) {
      setOutcome({ kind: "error", problem: problemOf(err), action });
    } finally {
      setBusy(false);
      setPending(null);
    }
  }

  const post = (verb: string, body?: unknown) => () => clientApi(`/v1/${verb}/${base}`, { method: "POST", ...(body !== undefined ? { body } : {}) });

  function confirmPending() {
    if (!pending) return;
    switch (pending.kind) {
      case "visibility":
        return run("Change visibility", post("visibility", { visibility: pending.to }), `${item.item_id} is now ${pending.to}.`);
      case "yank":
        return run(
          `Yank ${pending.version}`,
          post("yank", { version: pending.version, ...(yankReason.trim() ? { reason: yankReason.trim() } : {}) }),
          `${item.item_id}@${pending.version} is yanked.`,
          () => {
            setYankReason("");
            router.refresh();
          },
        );
      case "delete": {
        const version = pending.version;
        const everything = version === null || item.versions.length === 1;
        return run(
          version ? `Delete ${version}` : "Delete the item",
          () => clientApi(`/v1/delete/${base}${version ? `?version=${encodeURIComponent(version)}` : ""}`, { method: "DELETE" }),
          everything ? `${item.item_id} was deleted.` : `${item.item_id}@${version} was deleted.`,
          everything ? () => setGone(true) : undefined,
        );
      }
      case "transfer": {
        const newId = [pending.to, item.category, item.name].filter(Boolean).join("/");
        return run(`Transfer to ${pending.to}`, post("transfer", { to_namespace: pending.to }), `${item.item_id} moved to ${newId}.`, () =>
          router.replace(`/manage/${item.item_type}/${newId}`),
        );
      }
    }
  }

  function onDeprecate(event: React.FormEvent) {
    event.preventDefault();
    setReplacementProblem(null);
    const text = deprecation.trim();
    const other = replacement.trim();
    if (other) {
      try {
        parseRegistryItemId(other);
      } catch (err) {
        setReplacementProblem(err instanceof Error ? err.message : String(err));
        return;
      }
    }
    const message = [text, other ? `Use ${other} instead.` : ""].filter(Boolean).join(" ");
    if (!message) return;
    void run("Deprecate", post("deprecate", { message: message.slice(0, 1000) }), `${item.item_id} is deprecated.`, () => {
      setDeprecation("");
      setReplacement("");
      router.refresh();
    });
  }

  if (gone) {
    return (
      <div role="status" className={`${card} space-y-2`}>
        <p className="font-medium">{outcome?.kind === "ok" ? outcome.message : "The item was deleted."}</p>
        <p className={help}>
          Its publish log entries remain, with a delete entry. <Link className={link} href={`/${item.namespace}`}>Back to {item.namespace}</Link> ·{" "}
          <Link className={link} href="/publish">Publish an item</Link>
        </p>
      </div>
    );
  }

  const dialog = pending ? dialogContent(pending) : null;

  function dialogContent(p: Pending) {
    switch (p.kind) {
      case "visibility":
        return {
          title: `Make ${item.item_id} ${p.to}?`,
          confirm: `Make ${p.to}`,
          danger: p.to === "private",
          body: (
            <p>
              {p.to === "private"
                ? "People outside the namespace will get “not found” when they pull it, and it leaves search. Anyone who depends on it breaks."
                : "It will stop appearing in search; anyone with the id can still pull it."}
            </p>
          ),
        };
      case "yank":
        return {
          title: `Yank ${item.item_id}@${p.version}?`,
          confirm: `Yank ${p.version}`,
          danger: true,
          body: (
            <>
              <p>Yanked versions are no longer installed by default (latest moves to the highest non-yanked version), but stay pullable by explicit version, so nobody who pinned it breaks. You can unyank it later.</p>
              <div className="space-y-1">
                <label htmlFor={ids.reason} className={label}>Reason (optional, shown to users)</label>
                <input id={ids.reason} value={yankReason} onChange={(e) => setYankReason(e.target.value)} maxLength={1000} className={input} />
              </div>
            </>
          ),
        };
      case "delete":
        return {
          title: p.version ? `Delete ${item.item_id}@${p.version}?` : `Delete ${item.item_id} and all its versions?`,
          confirm: p.version ? `Delete ${p.version}` : "Delete the item",
          danger: true,
          body: (
            <p>
              This cannot be undone. The registry allows it only within {DELETE_WINDOW_HOURS} hours of publishing and while the item was never downloaded; otherwise
              yank instead. {p.version && item.versions.length === 1 ? "It is the only version: the whole item goes." : ""}
            </p>
          ),
        };
      case "transfer":
        return {
          title: `Transfer ${item.item_id} to ${p.to}?`,
          confirm: `Transfer to ${p.to}`,
          danger: true,
          body: (
            <p>
              The item id becomes <span className="font-mono">{[p.to, item.category, item.name].filter(Boolean).join("/")}</span>; the old id stops resolving. Its
              published versions keep their signatures, which still name the original publisher.
            </p>
          ),
        };
    }
  }

  return (
    <div className="space-y-6">
      <div aria-live="polite" aria-atomic="true" className="min-h-[1.5rem]" data-testid="manage-status">
        {outcome?.kind === "ok" ? <p className="rounded-md bg-green-50 p-3 text-sm font-medium text-green-950 dark:bg-green-950 dark:text-green-50">✓ {outcome.message}</p> : null}
      </div>
      {outcome?.kind === "error" ? <ErrorBox problem={outcome.problem} title={`${outcome.action} failed`} /> : null}

      <section aria-labelledby="visibility-heading" className={`${card} space-y-3`}>
        <h2 id="visibility-heading" className="text-lg font-semibold">Visibility</h2>
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (visibility === item.visibility) return;
            if (visibility === "public") void run("Change visibility", post("visibility", { visibility }), `${item.item_id} is now public.`);
            else setPending({ kind: "visibility", to: visibility });
          }}
        >
          <fieldset>
            <legend className="sr-only">Who can see {item.item_id}</legend>
            <div className="space-y-1">
              {(["public", "unlisted", "private"] as const).map((v) => (
                <label key={v} className="flex items-start gap-2 text-sm">
                  <input type="radio" name="visibility" value={v} checked={visibility === v} onChange={() => setVisibility(v)} className="mt-1 accent-brand-700" />
                  <span>
                    {VISIBILITY_TEXT[v]}
                    {v === item.visibility ? <span className="ml-1 text-neutral-600 dark:text-neutral-400">(current)</span> : null}
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" className={buttonPrimary} disabled={busy || visibility === item.visibility}>Save visibility</button>
        </form>
      </section>

      <section aria-labelledby="versions-heading" className={`${card} space-y-3`}>
        <h2 id="versions-heading" className="text-lg font-semibold">Versions</h2>
        <p className={help}>
          Yank a broken version rather than deleting it. Deleting is possible only within {DELETE_WINDOW_HOURS} hours of publishing and while the item was never
          downloaded ({item.download_count} {item.download_count === 1 ? "download" : "downloads"} so far).
        </p>
        <div className="overflow-x-auto">
          <table className="w-full min-w-[36rem] text-left text-sm">
            <caption className="sr-only">Versions of {item.item_id}</caption>
            <thead>
              <tr className="border-b border-neutral-200 dark:border-neutral-800">
                <th scope="col" className="py-2 pr-3">Version</th>
                <th scope="col" className="py-2 pr-3">Published</th>
                <th scope="col" className="py-2 pr-3">Status</th>
                <th scope="col" className="py-2">Actions</th>
              </tr>
            </thead>
            <tbody>
              {item.versions.map((v) => {
                const until = deletableUntil(v.created_at);
                const deletable = item.download_count === 0 && until.getTime() > now;
                return (
                  <tr key={v.version} className="border-b border-neutral-100 align-top dark:border-neutral-900">
                    <th scope="row" className="py-2 pr-3 font-mono font-medium">{v.version}</th>
                    <td className="py-2 pr-3">
                      <time dateTime={v.created_at}>{new Date(v.created_at).toISOString().slice(0, 16).replace("T", " ")} UTC</time>
                      <span className="block text-neutral-600 dark:text-neutral-400">by {v.publisher}</span>
                    </td>
                    <td className="py-2 pr-3">
                      {v.status === "pending" ? (
                        <Link href="/settings/approvals" className="underline">held for approval</Link>
                      ) : v.status === "rejected" ? (
                        "rejected"
                      ) : v.yanked ? (
                        <span>yanked{v.yanked_reason ? `: ${v.yanked_reason}` : ""}</span>
                      ) : v.version === item.latest_version ? (
                        "latest"
                      ) : (
                        "available"
                      )}
                      <span className="block text-xs text-neutral-600 dark:text-neutral-400">
                        {deletable ? `deletable until ${until.toISOString().slice(0, 16).replace("T", " ")} UTC` : "no longer deletable"}
                      </span>
                    </td>
                    <td className="py-2">
                      <div className="flex flex-wrap gap-2">
                        {v.status === "pending" || v.status === "rejected" ? null : v.yanked ? (
                          <button
                            type="button"
                            className={buttonSecondary}
                            disabled={busy}
                            aria-label={`Unyank ${v.version}`}
                            onClick={() => void run(`Unyank ${v.version}`, post("unyank", { version: v.version }), `${item.item_id}@${v.version} is available again.`)}
                          >
                            Unyank
                          </button>
                        ) : (
                          <button type="button" className={buttonSecondary} disabled={busy} aria-label={`Yank ${v.version}`} onClick={() => setPending({ kind: "yank", version: v.version })}>
                            Yank…
                          </button>
                        )}
                        <button type="button" className={buttonSecondary} disabled={busy} aria-label={`Delete ${v.version}`} onClick={() => setPending({ kind: "delete", version: v.version })}>
                          Delete…
                        </button>
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="deprecation-heading" className={`${card} space-y-3`}>
        <h2 id="deprecation-heading" className="text-lg font-semibold">Deprecation</h2>
        {item.deprecated ? (
          <div className="space-y-3">
            <p className="text-sm">
              Deprecated: <span className="italic">{item.deprecation_message}</span>
            </p>
            <button
              type="button"
              className={buttonSecondary}
              disabled={busy}
              onClick={() => void run("Un-deprecate", post("deprecate", { deprecated: false }), `${item.item_id} is no longer deprecated.`)}
            >
              Un-deprecate
            </button>
          </div>
        ) : (
          <form onSubmit={onDeprecate} className="space-y-3">
            <p className={help}>Deprecated items stay installable and listed, with your message shown to everyone who finds or pulls them.</p>
            <div className="space-y-1">
              <label htmlFor={ids.message} className={label}>Message</label>
              <textarea id={ids.message} value={deprecation} onChange={(e) => setDeprecation(e.target.value)} rows={2} maxLength={900} className={input} required />
            </div>
            <div className="space-y-1">
              <label htmlFor={ids.replacement} className={label}>Replacement item id (optional)</label>
              <input
                id={ids.replacement}
                value={replacement}
                onChange={(e) => setReplacement(e.target.value)}
                placeholder={`${item.namespace}/${item.category || "category"}/new_name`}
                className={`${input} font-mono`}
                aria-invalid={replacementProblem ? true : undefined}
                aria-describedby={`${ids.replacement}-help`}
                spellCheck={false}
              />
              <p id={`${ids.replacement}-help`} className={replacementProblem ? "text-sm text-red-800 dark:text-red-300" : help}>
                {replacementProblem ?? "Added to the message as “Use <id> instead.”"}
              </p>
            </div>
            <button type="submit" className={buttonPrimary} disabled={busy || (!deprecation.trim() && !replacement.trim())}>Deprecate</button>
          </form>
        )}
      </section>

      <section aria-labelledby="transfer-heading" className={`${card} space-y-3`}>
        <h2 id="transfer-heading" className="text-lg font-semibold">Transfer</h2>
        {transferTargets.length === 0 ? (
          <p className={help}>
            You manage no other namespace. Create an organization in <Link className={link} href="/settings">settings</Link> to move items there.
          </p>
        ) : (
          <form
            className="flex flex-wrap items-end gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              if (target) setPending({ kind: "transfer", to: target });
            }}
          >
            <div className="space-y-1">
              <label htmlFor={ids.target} className={label}>Move to namespace</label>
              <select id={ids.target} value={target} onChange={(e) => setTarget(e.target.value)} className={input}>
                {transferTargets.map((t) => <option key={t} value={t}>{t}</option>)}
              </select>
            </div>
            <button type="submit" className={buttonSecondary} disabled={busy || !target}>Transfer…</button>
          </form>
        )}
      </section>

      <section aria-labelledby="danger-heading" className="space-y-3 rounded-lg border border-red-300 p-4 sm:p-5 dark:border-red-900">
        <h2 id="danger-heading" className="text-lg font-semibold">Delete the item</h2>
        <p className={help}>Deletes every version, under the same {DELETE_WINDOW_HOURS}-hour, never-downloaded rule.</p>
        <button type="button" className={buttonDanger} disabled={busy} onClick={() => setPending({ kind: "delete", version: null })}>
          Delete {item.item_id}…
        </button>
      </section>

      <ConfirmDialog
        open={dialog !== null}
        title={dialog?.title ?? ""}
        confirmLabel={dialog?.confirm ?? "Confirm"}
        danger={dialog?.danger ?? false}
        busy={busy}
        onConfirm={() => void confirmPending()}
        onCancel={() => setPending(null)}
      >
        {dialog?.body}
      </ConfirmDialog>
    </div>
  );
}
