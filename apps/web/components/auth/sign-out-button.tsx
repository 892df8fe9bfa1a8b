import { signOutAction } from "./actions";

/** Ends the session (POST /v1/auth/logout with the CSRF token, through a server action: works without JavaScript). */
export function SignOutButton({ className }: { className?: string }) {
  return (
    <form action={signOutAction}>
      <button type="submit" className={className ?? "whitespace-nowrap hover:underline"}>
        Sign out
      </button>
    </form>
  );
}
