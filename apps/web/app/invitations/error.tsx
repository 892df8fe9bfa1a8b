"use client";

import { PageError } from "@/components/auth/page-error";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="Invitations could not be loaded" error={error} reset={reset} />;
}
