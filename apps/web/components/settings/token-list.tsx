import { ConfirmAction } from "./confirm-action";
import { Time } from "./time";
import type { TokenInfo } from "./types";
import { badge, card, help } from "./ui";

function status(token: TokenInfo, now: number): { label: string; active: boolean } {
  if (token.revoked) return { label: "Revoked", active: false };
  if (token.expires_at && Date.parse(token.expires_at) <= now) return { label: "Expired", active: false };
  return { label: "Active", active: true };
}

/** Tokens (no secrets: the prefix tells them apart), active first, each revocable after a confirmation. */
export function TokenList({ tokens, revokePath, empty }: { tokens: TokenInfo[]; revokePath: (id: string) => string; empty: string }) {
  const now = Date.now();
  if (tokens.length === 0) return <p className={help}>{empty}</p>;
  const sorted = [...tokens].sort((a, b) => Number(status(b, now).active) - Number(status(a, now).active));
  return (
    <ul className="space-y-3" aria-label="Tokens">
      {sorted.map((token) => {
        const s = status(token, now);
        return (
          <li key={token.id} className={`${card} space-y-2 ${s.active ? "" : "opacity-80"}`}>
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="font-semibold">{token.name}</h3>
              <span className={badge}>{s.label}</span>
              <code className="font-mono text-xs text-neutral-600 dark:text-neutral-400">{token.prefix}…</code>
            </div>
            <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[8rem_1fr]">
              <dt className="font-medium text-neutral-700 dark:text-neutral-300">Scopes</dt>
              <dd>{token.scopes.join(", ")}</dd>
              {token.namespace || token.item_pattern ? (
                <>
                  <dt className="font-medium text-neutral-700 dark:text-neutral-300">Limited to</dt>
                  <dd>{[token.namespace ? `namespace ${token.namespace}` : null, token.item_pattern ? `items ${token.item_pattern}` : null].filter(Boolean).join(", ")}</dd>
                </>
              ) : null}
              {token.created_by ? (
                <>
                  <dt className="font-medium text-neutral-700 dark:text-neutral-300">Created by</dt>
                  <dd>{token.created_by}</dd>
                </>
              ) : null}
              <dt className="font-medium text-neutral-700 dark:text-neutral-300">Created</dt>
              <dd>
                <Time iso={token.created_at} />
              </dd>
              <dt className="font-medium text-neutral-700 dark:text-neutral-300">Last used</dt>
              <dd>{token.last_used_at ? <Time iso={token.last_used_at} relative now={now} /> : "never"}</dd>
              <dt className="font-medium text-neutral-700 dark:text-neutral-300">Expires</dt>
              <dd>{token.expires_at ? <Time iso={token.expires_at} /> : "never"}</dd>
            </dl>
            {s.active ? (
              <ConfirmAction
                label="Revoke"
                accessibleLabel={`Revoke token ${token.name}`}
                question={`Revoke “${token.name}”? Programs using it stop working at once.`}
                path={revokePath(token.id)}
              />
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
