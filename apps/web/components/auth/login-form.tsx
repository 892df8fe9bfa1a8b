"use client";

import Link from "next/link";
import { useActionState } from "react";
import { buttonPrimary, link } from "@/components/settings/ui";
import { signInAction, type AuthFormState } from "./actions";
import { Field, ProblemBox } from "./form-bits";

/** Username-or-email and password; posts to a server action (works without JavaScript). */
export function LoginForm({ next, signupHref }: { next: string; signupHref: string | null }) {
  const [state, action, pending] = useActionState<AuthFormState, FormData>(signInAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="next" value={next} />
      <div aria-live="polite" id="login-problem">
        {state.problem ? <ProblemBox problem={state.problem} /> : null}
      </div>
      <Field
        id="login"
        name="login"
        label="Username or email"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        required
        maxLength={264}
        defaultValue={state.values?.login ?? ""}
        errors={state.fields?.login}
      />
      <Field id="password" name="password" type="password" label="Password" autoComplete="current-password" required maxLength={1024} errors={state.fields?.password} />
      <button type="submit" className={`${buttonPrimary} w-full`} disabled={pending} aria-disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
      {signupHref ? (
        <p className="text-center text-sm">
          New here?{" "}
          <Link href={signupHref} className={link}>
            Create an account
          </Link>
        </p>
      ) : null}
    </form>
  );
}
