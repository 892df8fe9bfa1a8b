import type { Metadata } from "next";
import { Suspense } from "react";
import { KeyAddForm } from "@/components/settings/key-add-form";
import { KeyList } from "@/components/settings/key-list";
import { SectionSkeleton } from "@/components/settings/skeleton";
import type { UserKey } from "@/components/settings/types";
import { card, help } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Keys",
  description: "The Ed25519 public keys your items are signed with.",
  openGraph: { title: "Keys · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

export default async function KeysPage() {
  await requireSession("/settings/keys");
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Keys</h1>
        <p className={help}>
          Items you publish carry your Ed25519 signature; the registry accepts it only from a key registered here. <code>rye push</code> offers to register
          your key the first time.
        </p>
      </div>
      <section aria-labelledby="add-key-heading" className={`${card} space-y-4`}>
        <h2 id="add-key-heading" className="text-lg font-semibold">
          Add a key
        </h2>
        <KeyAddForm />
      </section>
      <section aria-labelledby="keys-heading" className="space-y-4">
        <h2 id="keys-heading" className="text-lg font-semibold">
          Your keys
        </h2>
        <Suspense fallback={<SectionSkeleton />}>
          <Keys />
        </Suspense>
      </section>
    </div>
  );
}

async function Keys() {
  const { keys } = await api<{ keys: UserKey[] }>("/v1/me/keys", { session: true });
  return <KeyList keys={keys} />;
}
