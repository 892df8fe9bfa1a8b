"use client";
import { PageError } from "@/components/item/item-error";

export default function NamespaceError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} what="page" />;
}
