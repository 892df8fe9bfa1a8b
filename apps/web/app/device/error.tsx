"use client";

import { PageError } from "@/components/auth/page-error";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError title="Device sign-in is unavailable" error={error} reset={reset} />;
}
