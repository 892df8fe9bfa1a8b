import { ConfirmAction } from "./confirm-action";
import { Time } from "./time";
import type { OAuthGrant } from "./types";
import { badge, card, help } from "./ui";

/** What to call a sign-in's application: its name, or the URL that identifies a third party. */
function nameOf(grant: OAuthGrant): string {
  return grant.client_name ?? grant.client_id;
}

/** The applications signed in as the person (rye login, MCP clients), each revocable after a confirmation. */
export function OAuthGrantList({ grants }: { grants: OAuthGrant[] }) {
  if (grants.length === 0) return <p className={help}>No application is signed in as you.</p>;
  return (
    <ul className="space-y-3" aria-label="Signed-in applications">
      {grants.map((grant) => (
        <li key={grant.id} className={`${card} space-y-2`}>
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-semibold break-all">{nameOf(grant)}</h3>
            <span className={badge}>{grant.third_party ? "Third-party application" : "rye"}</span>
          </div>
          <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[8rem_1fr]">
            {grant.third_party && grant.client_name ? (
              <>
                <dt className="font-medium text-neutral-700 dark:text-neutral-300">Client id</dt>
                <dd className="break-all font-mono text-xs">{grant.client_id}</dd>
              </>
            ) : null}
            <dt className="font-medium text-neutral-700 dark:text-neutral-300">Scopes</dt>
            <dd>{grant.scopes.join(", ")}</dd>
            <dt className="font-medium text-neutral-700 dark:text-neutral-300">For</dt>
            <dd className="break-all">{grant.resource ?? "the registry API"}</dd>
            <dt className="font-medium text-neutral-700 dark:text-neutral-300">Last refreshed</dt>
            <dd>
              <Time iso={grant.last_refreshed_at} />
            </dd>
          </dl>
          <ConfirmAction
            label="Revoke"
            accessibleLabel={`Revoke the sign-in of ${nameOf(grant)}`}
            question={`Sign out “${nameOf(grant)}”? It can no longer renew its access; what it holds expires within 15 minutes.`}
            path={`/v1/me/oauth-grants/${encodeURIComponent(grant.id)}`}
          />
        </li>
      ))}
    </ul>
  );
}
