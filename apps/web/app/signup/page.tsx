import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { loadProviders, OrDivider, ProviderButtons, purposeOf } from "@/components/auth/providers";
import { SignupForm } from "@/components/auth/signup-form";
import { SupabaseSignIn } from "@/components/auth/supabase-sign-in";
import { help } from "@/components/settings/ui";
import { getSession } from "@/lib/session";
import { supabaseAuthSettings } from "@/lib/supabase-auth";
import { landingAfterSignIn, signInUrl } from "@/lib/session-next";

export const metadata: Metadata = {
  title: "Create an account",
  description: "Create a rye registry account to publish signed directives, tools and knowledge under your own namespace.",
  openGraph: { title: "Create an account · rye registry", description: "Publish signed AI-agent items under your own namespace." },
};

export const dynamic = "force-dynamic";

export default async function SignupPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = landingAfterSignIn((await searchParams).next);
  if (await getSession()) redirect(next);
  const { providers, local_accounts: local } = await loadProviders();
  const supabase = providers.some((p) => p.type === "supabase") ? supabaseAuthSettings() : null;
  const purpose = purposeOf(next)?.replace(/^Sign in/, "Create an account");
  return (
    <div className="mx-auto w-full max-w-sm space-y-6 py-4">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Create your rye account</h1>
        <p className={help}>{purpose ?? "Publish signed directives, tools and knowledge under your own namespace."}</p>
      </div>
      <ProviderButtons providers={providers} next={next} verb="Continue" />
      {supabase ? <SupabaseSignIn url={supabase.url} anonKey={supabase.anonKey} next={next} mode="sign-up" /> : null}
      {local ? (
        <>
          {supabase || providers.some((p) => p.type !== "supabase") ? <OrDivider /> : null}
          <SignupForm next={next} loginHref={signInUrl(next)} />
        </>
      ) : (
        <p className={help}>Accounts on this registry are created on your first sign-in through its identity provider.</p>
      )}
    </div>
  );
}
