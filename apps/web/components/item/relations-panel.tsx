/**
 * The item page's relations (GET /v1/relations): what this version uses — a directive's tools, knowledge and child
 * directives, a tool's executor — and which items use this one. Yanked or deprecated uses are flagged. The API
 * answers as the visitor may see it: private items appear only to their members.
 */
import Link from "next/link";
import type { ItemRelations, ItemType, ItemUse } from "@rye/core";
import { itemRelationsSchema } from "@rye/core";
import { apiParsedOrNull } from "@/lib/contracts";
import { itemHref } from "./data";
import { Section } from "./item-details";

const encodeId = (id: string) => id.split("/").map(encodeURIComponent).join("/");

const VERB: Record<ItemUse["kind"], string> = { execute: "runs", load: "loads", executor: "runs on" };

function Flag({ tone, children }: { tone: "red" | "amber"; children: string }) {
  const tones = { red: "border-red-700 text-red-800 dark:border-red-400 dark:text-red-300", amber: "border-amber-700 text-amber-900 dark:border-amber-400 dark:text-amber-200" };
  return <span className={`ml-2 inline-flex rounded-full border px-2 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

function UseRow({ use }: { use: ItemUse }) {
  const target = use.resolved;
  return (
    <li className="text-sm">
      <span className="text-neutral-600 dark:text-neutral-400">
        {VERB[use.kind]} {use.item_type}{" "}
      </span>
      {target && use.item_type !== "skill" ? (
        <Link href={itemHref(use.item_type, target.item_id, target.version ? { version: target.version } : undefined)} className="font-mono text-xs underline">
          {target.item_id}
          {target.version ? `@${target.version}` : ""}
        </Link>
      ) : (
        <>
          <code className="font-mono text-xs">{use.reference}{use.requested_version ? `@${use.requested_version}` : ""}</code>
          <span className="text-neutral-600 dark:text-neutral-400"> — not published in this registry</span>
        </>
      )}
      {target?.yanked ? <Flag tone="red">{target.version ? "Yanked" : "No installable version"}</Flag> : null}
      {target?.deprecated ? <Flag tone="amber">Deprecated</Flag> : null}
    </li>
  );
}

export async function RelationsPanel({ type, id, version }: { type: ItemType; id: string; version: string }) {
  const relations: ItemRelations | null = await apiParsedOrNull(itemRelationsSchema, `/v1/relations/${type}/${encodeId(id)}?version=${encodeURIComponent(version)}`, { session: true });
  if (!relations) return null;
  const flagged = relations.uses.filter((u) => u.resolved && (u.resolved.yanked || u.resolved.deprecated));
  return (
    <Section id="relations-heading" title="Relations">
      {flagged.length > 0 ? (
        <div className="rounded-md border-l-4 border-amber-700 bg-amber-50 px-4 py-3 text-sm text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100" role="note">
          <p className="font-semibold">
            {flagged.length === 1 ? "A dependency is" : `${flagged.length} dependencies are`} yanked or deprecated
          </p>
          <ul className="mt-1 list-disc pl-5">
            {flagged.map((u) => (
              <li key={`${u.item_type}-${u.reference}`}>
                {u.resolved!.item_id}: {[u.resolved!.yanked ? (u.resolved!.version ? `version ${u.resolved!.version} is yanked` : "every version is yanked") : null, u.resolved!.deprecated ? `deprecated${u.resolved!.deprecation_message ? ` (${u.resolved!.deprecation_message})` : ""}` : null].filter(Boolean).join("; ")}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="grid gap-6 sm:grid-cols-2">
        <section aria-labelledby="uses-heading" className="space-y-1">
          <h3 id="uses-heading" className="text-base font-semibold">
            Uses ({relations.uses.length})
          </h3>
          {relations.uses.length === 0 ? (
            <p className="text-sm text-neutral-600 dark:text-neutral-400">Version {relations.version ?? version} uses no other item.</p>
          ) : (
            <ul className="space-y-1">
              {relations.uses.map((u) => (
                <UseRow key={`${u.item_type}-${u.reference}`} use={u} />
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="used-by-heading" className="space-y-1">
          <h3 id="used-by-heading" className="text-base font-semibold">
            Used by ({relations.used_by_total})
          </h3>
          {relations.used_by.length === 0 ? (
            <p className="text-sm text-neutral-600 dark:text-neutral-400">No item you can see uses this one.</p>
          ) : (
            <ul className="space-y-1">
              {relations.used_by.map((u) => (
                <li key={`${u.item_type}-${u.item_id}`} className="text-sm">
                  <span className="text-neutral-600 dark:text-neutral-400">{u.item_type} </span>
                  <Link href={itemHref(u.item_type, u.item_id)} className="font-mono text-xs underline">
                    {u.item_id}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          {relations.used_by_total > relations.used_by.length ? <p className="text-xs text-neutral-600 dark:text-neutral-400">and {relations.used_by_total - relations.used_by.length} more</p> : null}
        </section>
      </div>
      <p className="text-xs text-neutral-600 dark:text-neutral-400">
        <code className="font-mono">rye pull --with-deps</code> pulls this item with everything it uses, verified and pinned in one step.
      </p>
    </Section>
  );
}
