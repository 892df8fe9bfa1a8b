"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useId, useState, useTransition } from "react";
import { Field, ProblemBox } from "@/components/auth/form-bits";
import { NAME_INPUT_PATTERN, NAME_MAX_LENGTH, NAME_MIN_LENGTH } from "@/components/auth/rules";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { buttonPrimary } from "./ui";

/** POST /v1/orgs, then to the new organization's page. */
export function OrgCreateForm() {
  const router = useRouter();
  const id = useId();
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [pending, startTransition] = useTransition();
  const fields = problem?.fieldErrors() ?? {};

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const displayName = String(form.get("display_name") ?? "").trim();
    startTransition(async () => {
      setProblem(null);
      try {
        const org = await clientApi<{ name: string }>("/v1/orgs", { method: "POST", body: { name, ...(displayName ? { display_name: displayName } : {}) } });
        router.push(`/settings/orgs/${encodeURIComponent(org.name)}`);
      } catch (err) {
        setProblem(ClientApiError.from(err));
      }
    });
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} title="The organization was not created" /> : null}</div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          id={`${id}-name`}
          name="name"
          label="Name"
          required
          minLength={NAME_MIN_LENGTH}
          maxLength={NAME_MAX_LENGTH}
          pattern={NAME_INPUT_PATTERN}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          hint="Its namespace: items are named after it (acme/…). Shared with usernames."
          errors={fields.name}
        />
        <Field id={`${id}-display`} name="display_name" label="Display name (optional)" maxLength={100} autoComplete="organization" errors={fields.display_name} />
      </div>
      <button type="submit" className={buttonPrimary} disabled={pending}>
        {pending ? "Creating…" : "Create organization"}
      </button>
    </form>
  );
}
