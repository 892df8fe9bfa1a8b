"use client";
import { PageError } from "@/components/item/item-error";

export default function ToolError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} what="tool" />;
}
