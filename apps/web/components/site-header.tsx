import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { currentSession } from "@/lib/api";
import { ThemeToggle } from "./theme-toggle";

export async function SiteHeader() {
  const session = await currentSession().catch(() => null);
  return (
    <header className="border-b border-neutral-200 dark:border-neutral-800">
      <nav aria-label="Main" className="mx-auto flex w-full max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="text-lg font-semibold tracking-tight">
          rye<span className="text-brand-600 dark:text-brand-300"> registry</span>
        </Link>
        <form action="/search" method="get" role="search" className="order-last w-full sm:order-none sm:w-auto sm:flex-1">
          <label htmlFor="site-search" className="sr-only">Search items</label>
          <input
            id="site-search"
            name="q"
            type="search"
            placeholder="Search directives, tools, knowledge…"
            className="w-full rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm dark:border-neutral-700 dark:bg-neutral-900"
          />
        </form>
        <div className="ml-auto flex flex-wrap items-center justify-end gap-x-4 gap-y-1 text-sm">
          <Link href="/search" className="hover:underline">Browse</Link>
          <Link href="/publish" className="hover:underline">Publish</Link>
          {session ? (
            <>
              <Link href={`/${session.user.username}`} className="hover:underline">{session.user.username}</Link>
              <Link href="/settings" className="hover:underline">Settings</Link>
              <SignOutButton />
            </>
          ) : (
            <>
              <Link href="/login" className="hover:underline">Sign in</Link>
              <Link href="/signup" className="rounded-md bg-brand-700 px-3 py-1.5 font-medium text-white hover:bg-brand-600">Sign up</Link>
            </>
          )}
          <ThemeToggle />
        </div>
      </nav>
    </header>
  );
}
