"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError } from "@/lib/client-api";

/**
 * One setting edited in place and saved by a call to the API (a member's role, an organization's approval or remote
 * MCP setting): its value, the save, and what the save said. `persist` stores the value and answers the line to show;
 * on a refusal the value goes back to `initial` and the API's problem is shown.
 */
export function useSettingEditor<T>(initial: T, persist: (value: T) => Promise<string>) {
  const router = useRouter();
  const [value, setValue] = useState<T>(initial);
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const save = () =>
    startTransition(async () => {
      setProblem(null);
      setSaved(null);
      try {
        setSaved(await persist(value));
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
        setValue(initial);
      }
    });
  return { value, setValue, pending, save, problem, saved };
}

/** What the last save said: the API's problem under `title`, or the saved line. */
export function SettingStatus({ problem, saved, title }: { problem: ClientApiError | null; saved: string | null; title: string }) {
  return <div aria-live="polite">{problem ? <ProblemBox problem={problem} title={title} /> : saved ? <p className="text-sm">{saved}</p> : null}</div>;
}
