"use client";

/**
 * Sign in (or sign up) with Supabase Auth: supabase-js talks to the project from the browser, then the access
 * token goes to the registry through a server action (POST /v1/auth/supabase/session), which opens a rye session
 * and redirects to `next`. Supabase's own session is not kept (rye's cookie is the session). A return from a
 * Supabase email confirmation link carries the session in the URL: it is picked up on load and exchanged the same way.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { buttonPrimary } from "@/components/settings/ui";
import { supabaseSessionAction } from "./actions";
import { Field, ProblemBox, type ShownProblem, SuccessBox } from "./form-bits";

export interface SupabaseSignInProps {
  url: string;
  anonKey: string;
  next: string;
  mode: "sign-in" | "sign-up";
}

function browserClient(url: string, anonKey: string): SupabaseClient {
  return createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: true, flowType: "implicit" } });
}

export function SupabaseSignIn({ url, anonKey, next, mode }: SupabaseSignInProps) {
  const supabase = useMemo(() => browserClient(url, anonKey), [url, anonKey]);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ShownProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function exchange(accessToken: string) {
    // On success the action redirects (the promise does not settle here); otherwise it says why.
    const state = await supabaseSessionAction(accessToken, next);
    if (state.problem) setProblem(state.problem);
    setPending(false);
  }

  useEffect(() => {
    let live = true;
    void supabase.auth.getSession().then(({ data }) => {
      if (live && data.session) {
        setPending(true);
        void exchange(data.session.access_token);
      }
    });
    return () => {
      live = false;
    };
  }, [supabase]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    setProblem(null);
    setNotice(null);
    setPending(true);
    if (mode === "sign-in") {
      const { data, error } = await supabase.auth.signInWithPassword({ email, password });
      if (error || !data.session) {
        setProblem({ message: error?.message ?? "Supabase did not open a session", hint: "Check your email and password.", code: error?.code });
        setPending(false);
        return;
      }
      await exchange(data.session.access_token);
      return;
    }
    const emailRedirectTo = `${window.location.origin}/login?next=${encodeURIComponent(next)}`;
    const { data, error } = await supabase.auth.signUp({ email, password, options: { emailRedirectTo } });
    if (error) {
      setProblem({ message: error.message, code: error.code });
      setPending(false);
      return;
    }
    if (data.session) {
      await exchange(data.session.access_token);
      return;
    }
    setNotice(`Check ${email} for a confirmation link; it brings you back here signed in.`);
    setPending(false);
  }

  const verb = mode === "sign-in" ? "Sign in" : "Sign up";
  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="supabase-heading">
      <h2 id="supabase-heading" className="text-sm font-medium">
        {verb} with Supabase
      </h2>
      <div aria-live="polite">
        {problem ? <ProblemBox problem={problem} title="Supabase" /> : null}
        {notice ? <SuccessBox>{notice}</SuccessBox> : null}
      </div>
      <Field id="supabase-email" name="email" type="email" label="Email" autoComplete="email" required maxLength={254} />
      <Field
        id="supabase-password"
        name="password"
        type="password"
        label="Password"
        autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
        required
        minLength={mode === "sign-up" ? 8 : undefined}
        maxLength={1024}
      />
      <button type="submit" className={`${buttonPrimary} w-full`} disabled={pending} aria-disabled={pending}>
        {pending ? `${verb === "Sign in" ? "Signing in" : "Signing up"}…` : `${verb} with Supabase`}
      </button>
    </form>
  );
}
