/** What every upstream protocol adapter (OpenID Connect, GitHub) offers the sign-in routes. */

/** The person as the identity provider vouches for them. */
export interface UpstreamProfile {
  /** Provider id from the configuration (`Identity.provider`). */
  provider: string;
  /** Stable account id at the provider (`sub`, GitHub's numeric user id) — never an email or login. */
  subject: string;
  /** Lowercased email, or null when the provider gave none. */
  email: string | null;
  /** True only when the provider asserts that it verified `email`. */
  emailVerified: boolean;
  /** Username candidates, best first (preferred_username / login, email local part, name). */
  usernameHints: string[];
  displayName: string;
}

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  /** OpenID Connect only. */
  nonce?: string;
  /** PKCE S256 challenge of the flow's code verifier. */
  codeChallenge: string;
}

export interface CallbackChecks {
  state: string;
  nonce?: string;
  codeVerifier: string;
}

export interface UpstreamClient {
  /** Whether this protocol binds an ID token to a nonce (OpenID Connect). */
  readonly usesNonce: boolean;
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  /** Validates the authorization response at `callbackUrl`, redeems the code and returns the verified profile. */
  finish(callbackUrl: URL, checks: CallbackChecks): Promise<UpstreamProfile>;
}
