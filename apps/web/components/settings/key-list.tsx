import { ConfirmAction } from "./confirm-action";
import { Time } from "./time";
import type { UserKey } from "./types";
import { badge, card, help } from "./ui";

/** Registered author keys, active first; removing one revokes it for good. */
export function KeyList({ keys }: { keys: UserKey[] }) {
  if (keys.length === 0) return <p className={help}>No keys yet. Add the public key you sign items with before you publish.</p>;
  const sorted = [...keys].sort((a, b) => Number(a.revoked) - Number(b.revoked));
  return (
    <ul className="space-y-3" aria-label="Keys">
      {sorted.map((key) => (
        <li key={key.fingerprint} className={`${card} space-y-2`}>
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-mono font-semibold">{key.fingerprint}</h3>
            {key.label ? <span className="text-sm">{key.label}</span> : null}
            <span className={badge}>{key.revoked ? "Revoked" : "Active"}</span>
          </div>
          <p className={help}>
            Added <Time iso={key.created_at} />
            {key.revoked_at ? (
              <>
                , revoked <Time iso={key.revoked_at} />
              </>
            ) : null}
          </p>
          <details className="text-sm">
            <summary className="cursor-pointer">Show the public key</summary>
            <pre className="mt-2 overflow-x-auto rounded bg-neutral-100 p-2 font-mono text-xs dark:bg-neutral-900">{key.public_key}</pre>
          </details>
          {key.revoked ? null : (
            <ConfirmAction
              label="Remove"
              accessibleLabel={`Remove key ${key.fingerprint}`}
              question="Remove this key? Revocation is final: pushes signed with it are refused, and it cannot be added again."
              path={`/v1/me/keys/${encodeURIComponent(key.fingerprint)}`}
            />
          )}
        </li>
      ))}
    </ul>
  );
}
