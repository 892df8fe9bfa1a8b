import Link from "next/link";

export default function ManageNotFound() {
  return (
    <div className="mx-auto max-w-2xl space-y-3">
      <h1 className="text-2xl font-semibold">Item not found</h1>
      <p className="text-neutral-700 dark:text-neutral-300">
        There is no such item, or it is private to a namespace you are not a member of. Item ids look like <code>namespace/category/name</code>.
      </p>
      <p>
        <Link href="/search" className="underline">Search the registry</Link> · <Link href="/publish" className="underline">Publish an item</Link>
      </p>
    </div>
  );
}
