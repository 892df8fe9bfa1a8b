/** The sign-in methods of this registry (GET /v1/auth/providers) and the buttons of its identity providers. */
import { api } from "@/lib/api";
import { buttonSecondary } from "@/components/settings/ui";

export interface AuthProviders {
  providers: { id: string; name: string; type: "oidc" | "github" | "supabase" }[];
  local_accounts: boolean;
}

/** The registry's sign-in methods; when the API cannot say, local accounts only (the form shows the API's error then). */
export async function loadProviders(): Promise<AuthProviders> {
  try {
    return await api<AuthProviders>("/v1/auth/providers");
  } catch {
    return { providers: [], local_accounts: true };
  }
}

/**
 * One link per OpenID Connect / GitHub provider: the API's start endpoint redirects to the provider
 * and, after the sign-in, back to `next`. (Supabase Auth signs in through its own client library.)
 */
export function ProviderButtons({ providers, next, verb }: { providers: AuthProviders["providers"]; next: string; verb: string }) {
  const redirecting = providers.filter((p) => p.type === "oidc" || p.type === "github");
  if (redirecting.length === 0) return null;
  return (
    <ul className="space-y-2" aria-label="Identity providers">
      {redirecting.map((p) => (
        <li key={p.id}>
          {/* A plain link: the start endpoint is the API's (a full page load, not a client-side route). */}
          <a href={`/v1/auth/oidc/${encodeURIComponent(p.id)}/start?next=${encodeURIComponent(next)}`} className={`${buttonSecondary} w-full py-2`}>
            {verb} with {p.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** "or" between the provider buttons and the password form. */
export function OrDivider() {
  return (
    <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-neutral-600 dark:text-neutral-400" role="separator">
      <span className="h-px flex-1 bg-neutral-200 dark:bg-neutral-800" />
      or
      <span className="h-px flex-1 bg-neutral-200 dark:bg-neutral-800" />
    </div>
  );
}

/** Why the visitor is asked to sign in, when `next` tells (the CLI's sign-in flows). */
export function purposeOf(next: string): string | null {
  if (next.startsWith("/oauth/authorize")) {
    const clientId = new URLSearchParams(next.split("?")[1] ?? "").get("client_id");
    if (clientId === "rye-cli") return "Sign in to authorize the rye command line on this computer (rye login --web).";
    return "Sign in to decide whether an application may read this registry on your behalf.";
  }
  if (next.startsWith("/device")) return "Sign in to connect a device to your account (rye login).";
  if (next.startsWith("/invitations")) return "Sign in to answer your organization invitation.";
  if (next.startsWith("/settings")) return "Sign in to manage your tokens, keys and organizations.";
  if (next.startsWith("/publish")) return "Sign in to publish items.";
  return null;
}
