"use client";
import { PageError } from "@/components/item/item-error";

export default function SkillError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} what="skill" />;
}
