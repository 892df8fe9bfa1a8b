/** Every version of an item with dates, publishers and yanked markers, links to view or compare them. */
import Link from "next/link";
import type { ItemDetails, RegistryItemType } from "@rye/core";
import { itemHref } from "./data";

const formatDate = (iso: string) => new Date(iso).toISOString().slice(0, 10);

export function VersionsList({ type, details, current }: { type: RegistryItemType; details: ItemDetails; current: string }) {
  const versions = details.versions;
  return (
    <div className="space-y-3">
      <div className="overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">Versions of {details.item_id}, highest first</caption>
          <thead className="bg-neutral-50 dark:bg-neutral-900">
            <tr>
              {["Version", "Published", "Publisher", "Status", "Changes"].map((h) => (
                <th key={h} scope="col" className="px-3 py-2 text-left text-xs font-semibold text-neutral-700 dark:text-neutral-300">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {versions.map((v, i) => {
              const previous = versions[i + 1];
              const isCurrent = v.version === current;
              return (
                <tr key={v.version} className={isCurrent ? "bg-brand-50 dark:bg-neutral-900" : ""}>
                  <th scope="row" className="px-3 py-2 text-left font-normal">
                    <Link href={itemHref(type, details.item_id, { version: v.version })} className="font-mono underline" aria-current={isCurrent ? "page" : undefined}>
                      {v.version}
                    </Link>
                    {isCurrent ? " " : null}
                    {isCurrent ? <span className="ml-1 text-xs text-neutral-600 dark:text-neutral-400">(shown)</span> : null}
                  </th>
                  <td className="px-3 py-2">
                    <time dateTime={v.created_at}>{formatDate(v.created_at)}</time>
                  </td>
                  <td className="px-3 py-2">{v.publisher}</td>
                  <td className="px-3 py-2">
                    {v.status === "pending" || v.status === "rejected" ? (
                      // Only the namespace's owners/admins and registry admins are sent held versions.
                      <span className="inline-block rounded border border-amber-700 px-1.5 text-xs font-medium text-amber-900 dark:border-amber-400 dark:text-amber-200">
                        {v.status === "pending" ? "Held for approval" : "Rejected"}
                      </span>
                    ) : v.yanked ? (
                      <span className="inline-block rounded border border-red-700 px-1.5 text-xs font-medium text-red-800 dark:border-red-400 dark:text-red-300">
                        Yanked{v.yanked_reason ? `: ${v.yanked_reason}` : ""}
                      </span>
                    ) : v.version === details.latest_version ? (
                      <span className="inline-block rounded border border-green-700 px-1.5 text-xs font-medium text-green-800 dark:border-green-400 dark:text-green-300">Latest</span>
                    ) : (
                      <span className="text-xs text-neutral-600 dark:text-neutral-400">Available</span>
                    )}
                  </td>
                  <td className="px-3 py-2">
                    {previous ? (
                      <Link href={itemHref(type, details.item_id, { diff: `${previous.version}...${v.version}` })} className="text-xs underline">
                        Compare with {previous.version}
                        <span className="sr-only"> (changes in {v.version})</span>
                      </Link>
                    ) : (
                      <span className="text-xs text-neutral-600 dark:text-neutral-400">First version</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {versions.length > 1 ? <CompareForm type={type} details={details} current={current} /> : null}
    </div>
  );
}

/** A plain GET form (works without JavaScript): the page turns ?from=&to= into ?diff=from...to. */
function CompareForm({ type, details, current }: { type: RegistryItemType; details: ItemDetails; current: string }) {
  const versions = details.versions.map((v) => v.version);
  const index = versions.indexOf(current);
  const defaultFrom = versions[index + 1] ?? versions[1] ?? versions[0]!;
  const defaultTo = index >= 0 && versions[index + 1] ? current : versions[0]!;
  return (
    <form method="get" action={itemHref(type, details.item_id)} className="flex flex-wrap items-end gap-3" aria-label="Compare two versions">
      <VersionSelect id="compare-from" name="from" label="From version" versions={versions} defaultValue={defaultFrom} />
      <VersionSelect id="compare-to" name="to" label="To version" versions={versions} defaultValue={defaultTo} />
      <button type="submit" className="rounded-md border border-neutral-300 px-3 py-1 text-sm font-medium hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:border-neutral-700 dark:hover:bg-neutral-800">
        Compare
      </button>
    </form>
  );
}

function VersionSelect({ id, name, label, versions, defaultValue }: { id: string; name: string; label: string; versions: string[]; defaultValue: string }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium">
        {label}
      </label>
      <select id={id} name={name} defaultValue={defaultValue} className="rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm dark:border-neutral-700 dark:bg-neutral-900">
        {versions.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
}
