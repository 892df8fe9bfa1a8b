import Link from "next/link";

export default function NotFound() {
  return (
    <div className="space-y-3">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p>There is nothing here, or it is private and you are not signed in with access to it.</p>
      <p><Link href="/search" className="underline">Search the registry</Link></p>
    </div>
  );
}
