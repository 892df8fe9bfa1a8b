import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { loadProviders, OrDivider, ProviderButtons, purposeOf } from "@/components/auth/providers";
import { SupabaseSignIn } from "@/components/auth/supabase-sign-in";
import { help } from "@/components/settings/ui";
import { getSession } from "@/lib/session";
import { supabaseAuthSettings } from "@/lib/supabase-auth";
import { landingAfterSignIn, signInUrl } from "@/lib/session-next";

export const metadata: Metadata = {
  title: "Sign in",
  description: "Sign in to the rye registry to publish items, manage tokens and keys, and connect the rye command line.",
  openGraph: { title: "Sign in · rye registry", description: "Sign in to the rye registry." },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = landingAfterSignIn((await searchParams).next);
  if (await getSession()) redirect(next);
  const { providers, local_accounts: local } = await loadProviders();
  const supabase = providers.some((p) => p.type === "supabase") ? supabaseAuthSettings() : null;
  const purpose = purposeOf(next);
  return (
    <div className="mx-auto w-full max-w-sm space-y-6 py-4">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Sign in to rye</h1>
        {purpose ? <p className={help}>{purpose}</p> : null}
      </div>
      <ProviderButtons providers={providers} next={next} verb="Sign in" />
      {supabase ? <SupabaseSignIn url={supabase.url} anonKey={supabase.anonKey} next={next} mode="sign-in" /> : null}
      {local ? (
        <>
          {supabase || providers.some((p) => p.type !== "supabase") ? <OrDivider /> : null}
          <LoginForm next={next} signupHref={signInUrl(next, "/signup")} />
        </>
      ) : (
        <p className={help}>This registry signs people in through its identity provider only.</p>
      )}
    </div>
  );
}
