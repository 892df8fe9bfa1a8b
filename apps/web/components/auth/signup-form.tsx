"use client";

import Link from "next/link";
import { useActionState } from "react";
import { buttonPrimary, link } from "@/components/settings/ui";
import { signUpAction, type AuthFormState } from "./actions";
import { Field, ProblemBox } from "./form-bits";
import { NAME_INPUT_PATTERN, NAME_MAX_LENGTH, NAME_MIN_LENGTH, NAME_RULES, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORD_RULES } from "./rules";

/** Username, email and password; posts to a server action (works without JavaScript). */
export function SignupForm({ next, loginHref }: { next: string; loginHref: string }) {
  const [state, action, pending] = useActionState<AuthFormState, FormData>(signUpAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="next" value={next} />
      <div aria-live="polite">{state.problem ? <ProblemBox problem={state.problem} /> : null}</div>
      <Field
        id="username"
        name="username"
        label="Username"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        required
        minLength={NAME_MIN_LENGTH}
        maxLength={NAME_MAX_LENGTH}
        pattern={NAME_INPUT_PATTERN}
        defaultValue={state.values?.username ?? ""}
        hint={NAME_RULES}
        errors={state.fields?.username}
      />
      <Field id="email" name="email" type="email" label="Email" autoComplete="email" required maxLength={254} defaultValue={state.values?.email ?? ""} errors={state.fields?.email} />
      <Field
        id="new-password"
        name="password"
        type="password"
        label="Password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        maxLength={PASSWORD_MAX_LENGTH}
        hint={
          <ul className="list-disc pl-5">
            {PASSWORD_RULES.map((rule) => (
              <li key={rule}>{rule}</li>
            ))}
          </ul>
        }
        errors={state.fields?.password}
      />
      <button type="submit" className={`${buttonPrimary} w-full`} disabled={pending}>
        {pending ? "Creating your account…" : "Create account"}
      </button>
      <p className="text-center text-sm">
        Already have an account?{" "}
        <Link href={loginHref} className={link}>
          Sign in
        </Link>
      </p>
    </form>
  );
}
