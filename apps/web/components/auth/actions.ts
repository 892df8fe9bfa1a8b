"use server";
/**
 * Server actions of the sign-in, sign-up, device and invitation forms. They work without JavaScript
 * (a plain form post, answered with the re-rendered page or a 303 redirect) and with it. They call
 * the API over loopback with the visitor's cookie; sign-in and sign-out relay the session cookie the
 * API sets or clears. Next.js refuses actions posted from another origin; changes made as the
 * signed-in visitor also carry the session's CSRF token to the API.
 */
import { redirect } from "next/navigation";
import { callApi, callAsVisitor, getSession, type Problem } from "@/lib/session";
import { landingAfterSignIn } from "@/lib/session-next";

export interface AuthFormState {
  problem?: { message: string; hint?: string | undefined; code: string } | undefined;
  fields?: Record<string, string[]> | undefined;
  /** What the visitor typed (never the password), to refill the form after an error. */
  values?: Record<string, string> | undefined;
}

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};

function shown(problem: Problem): AuthFormState["problem"] {
  const wait = problem.retryAfter ? ` Try again in ${Math.ceil(problem.retryAfter / 60)} min.` : "";
  return { message: problem.message, hint: `${problem.hint ?? ""}${problem.code === "RATE_LIMITED" ? wait : ""}`.trim() || undefined, code: problem.code };
}

export async function signInAction(_previous: AuthFormState, form: FormData): Promise<AuthFormState> {
  const login = text(form, "login").trim();
  const password = text(form, "password");
  const next = landingAfterSignIn(text(form, "next"));
  if (!login || !password) {
    return {
      problem: { message: "Enter your username or email and your password", code: "VALIDATION_FAILED" },
      fields: { ...(login ? {} : { login: ["Enter your username or email"] }), ...(password ? {} : { password: ["Enter your password"] }) },
      values: { login },
    };
  }
  const result = await callApi("/v1/auth/login", { method: "POST", body: { login, password }, relayCookies: true });
  if (!result.ok) return { problem: shown(result.problem), fields: result.problem.fields, values: { login } };
  redirect(next);
}

export async function signUpAction(_previous: AuthFormState, form: FormData): Promise<AuthFormState> {
  const values = { username: text(form, "username").trim(), email: text(form, "email").trim() };
  const password = text(form, "password");
  const next = landingAfterSignIn(text(form, "next"));
  const result = await callApi("/v1/auth/signup", { method: "POST", body: { ...values, password }, relayCookies: true });
  if (!result.ok) {
    const { problem } = result;
    // A taken name or email names its field in details; say so next to the field as well.
    return { problem: shown(problem), fields: problem.fields, values };
  }
  redirect(next);
}

export async function signOutAction(): Promise<void> {
  const session = await getSession();
  // Without a session there is nothing to end on the API; the call still clears a stale cookie.
  await callApi("/v1/auth/logout", { method: "POST", csrf: session?.csrf_token, relayCookies: true });
  redirect("/");
}

// ---- device approval ------------------------------------------------------------------------------

export interface DeviceState {
  problem?: AuthFormState["problem"];
}

/**
 * Approves or denies; the outcome is a redirect to `/device?outcome=…` (the code is used up, so the
 * page cannot be rendered for it again — also not by a browser without JavaScript).
 */
export async function deviceDecisionAction(_previous: DeviceState, form: FormData): Promise<DeviceState> {
  const userCode = text(form, "user_code");
  const decision = text(form, "decision") === "approve" ? "approve" : "deny";
  const result = await callAsVisitor<{ status: "approved" | "denied" }>(`/v1/device/${decision}`, { method: "POST", body: { user_code: userCode } });
  if (!result.ok) return { problem: shown(result.problem) };
  redirect(`/device?outcome=${result.data.status}`);
}

// ---- invitations -----------------------------------------------------------------------------------

export interface InvitationState {
  declined?: string | undefined;
  problem?: AuthFormState["problem"];
}

const joinedPage = (org: string) => `/settings/orgs/${encodeURIComponent(org)}?joined=1`;

/** Accepts the invitation whose secret came in the link (`/invitations?token=…`); then to the organization. */
export async function acceptInvitationTokenAction(_previous: InvitationState, form: FormData): Promise<InvitationState> {
  const result = await callAsVisitor<{ org: string; role: string }>("/v1/orgs/invitations/accept", { method: "POST", body: { token: text(form, "token") } });
  if (!result.ok) return { problem: shown(result.problem) };
  redirect(joinedPage(result.data.org));
}

/** Accepts (then to the organization) or declines a pending invitation addressed to the visitor, by id. */
export async function answerInvitationAction(_previous: InvitationState, form: FormData): Promise<InvitationState> {
  const id = text(form, "id");
  const decision = text(form, "decision") === "accept" ? "accept" : "decline";
  const result = await callAsVisitor<{ org: string }>(`/v1/me/invitations/${encodeURIComponent(id)}/${decision}`, { method: "POST" });
  if (!result.ok) return { problem: shown(result.problem) };
  if (decision === "accept") redirect(joinedPage(result.data.org));
  return { declined: result.data.org };
}

// ---- Supabase Auth ---------------------------------------------------------------------------------

/**
 * The browser signed in with supabase-js (components/auth/supabase-sign-in.tsx): the registry verifies the
 * Supabase access token and answers with its own session cookie, relayed here; then on to `next`.
 */
export async function supabaseSessionAction(accessToken: string, nextPath: string): Promise<AuthFormState> {
  if (typeof accessToken !== "string" || accessToken.length === 0 || accessToken.length > 16_384) {
    return { problem: { message: "Supabase gave no usable session", hint: "Sign in with Supabase again.", code: "VALIDATION_FAILED" } };
  }
  const next = landingAfterSignIn(typeof nextPath === "string" ? nextPath : "/");
  const result = await callApi("/v1/auth/supabase/session", { method: "POST", body: { access_token: accessToken }, relayCookies: true });
  if (!result.ok) return { problem: shown(result.problem) };
  redirect(next);
}
