import { SearchResultsSkeleton } from "@/components/search-skeleton";

export default function SearchLoading() {
  return (
    <div className="space-y-6">
      <div className="space-y-3" aria-hidden="true">
        <div className="h-8 w-64 rounded bg-neutral-200 dark:bg-neutral-800" />
        <div className="h-[4.25rem] rounded bg-neutral-100 dark:bg-neutral-900" />
      </div>
      <div className="min-h-[80vh]">
        <SearchResultsSkeleton />
      </div>
    </div>
  );
}
