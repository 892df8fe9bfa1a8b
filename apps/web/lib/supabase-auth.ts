/**
 * Supabase Auth on the website: when the registry is configured with `SUPABASE_URL` and `SUPABASE_ANON_KEY`
 * (the same variables the API reads, apps/api/src/auth/upstream/config.ts), the sign-in and sign-up pages offer
 * a Supabase form. The browser signs in with supabase-js and hands the access token to the registry
 * (POST /v1/auth/supabase/session), which verifies it against the project's JWKS and opens a rye session.
 * Both values are public by design (the anon key is meant for browsers); without the anon key the form is not shown.
 */
export interface SupabaseAuthSettings {
  url: string;
  anonKey: string;
}

export function supabaseAuthSettings(env: Record<string, string | undefined> = process.env): SupabaseAuthSettings | null {
  const url = env.SUPABASE_URL?.trim().replace(/\/+$/, "");
  const anonKey = env.SUPABASE_ANON_KEY?.trim();
  if (!url || !anonKey) return null;
  return { url, anonKey };
}
