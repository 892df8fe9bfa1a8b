import type { Metadata } from "next";
import { Suspense } from "react";
import { loadScopes } from "@/components/settings/scopes";
import { TokenCreateForm } from "@/components/settings/token-create-form";
import { SectionSkeleton } from "@/components/settings/skeleton";
import { OAuthGrantList } from "@/components/settings/oauth-grant-list";
import { TokenList } from "@/components/settings/token-list";
import type { MyOrg, OAuthGrant, TokenInfo } from "@/components/settings/types";
import { card, help } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Tokens",
  description: "Personal access tokens for CI and scripts: scoped, expiring and revocable.",
  openGraph: { title: "Tokens · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

export default async function TokensPage() {
  const { user } = await requireSession("/settings/tokens");
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Tokens</h1>
        <p className={help}>
          Personal access tokens let CI jobs and scripts act as you, within the scopes you choose. For your own computer, <code>rye login</code> is simpler.
        </p>
      </div>
      <Suspense fallback={<SectionSkeleton cards={3} />}>
        <Tokens username={user.username} />
      </Suspense>
    </div>
  );
}

async function Tokens({ username }: { username: string }) {
  const [tokens, grants, orgs, scopes] = await Promise.all([
    api<{ tokens: TokenInfo[] }>("/v1/tokens", { session: true }),
    api<{ grants: OAuthGrant[] }>("/v1/me/oauth-grants", { session: true }),
    api<{ orgs: MyOrg[] }>("/v1/me/orgs", { session: true }),
    loadScopes(() => api<{ scopes_supported?: unknown }>("/.well-known/oauth-authorization-server")),
  ]);
  return (
    <>
      <section aria-labelledby="new-token-heading" className={`${card} space-y-4`}>
        <h2 id="new-token-heading" className="text-lg font-semibold">
          New token
        </h2>
        <TokenCreateForm endpoint="/v1/tokens" scopes={scopes} namespaces={[username, ...orgs.orgs.map((o) => o.name)]} />
      </section>
      <section aria-labelledby="tokens-heading" className="space-y-4">
        <h2 id="tokens-heading" className="text-lg font-semibold">
          Your tokens
        </h2>
        <TokenList tokens={tokens.tokens} revokePath={(id) => `/v1/tokens/${encodeURIComponent(id)}`} empty="No tokens yet. Create one above when a program needs to act as you." />
      </section>
      <section aria-labelledby="grants-heading" className="space-y-4">
        <h2 id="grants-heading" className="text-lg font-semibold">
          Signed-in applications
        </h2>
        <p className={help}>
          <code>rye login</code> and MCP clients you approved sign in with OAuth. Revoke one to sign it out; third-party applications can only read.
        </p>
        <OAuthGrantList grants={grants.grants} />
      </section>
    </>
  );
}
