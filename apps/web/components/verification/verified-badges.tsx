/**
 * The verified names of a namespace (GET /v1/namespaces/{name}/verified): a "Verified" badge per domain or GitHub
 * organization its organization proved (docs/namespace-verification.md). Shown on namespace and item pages;
 * renders nothing for users and unverified organizations.
 */
import { verifiedBadgeListSchema } from "@rye/core";
import { apiParsedOrNull } from "@/lib/contracts";

export async function VerifiedBadges({ namespace }: { namespace: string }) {
  const answer = await apiParsedOrNull(verifiedBadgeListSchema, `/v1/namespaces/${encodeURIComponent(namespace)}/verified`).catch(() => null);
  if (!answer || answer.verified.length === 0) return null;
  return (
    <ul className="inline-flex flex-wrap gap-2" aria-label={`Verified names of ${namespace}`}>
      {answer.verified.map((b) => (
        <li key={`${b.kind}:${b.subject}`}>
          <span
            className="inline-flex items-center gap-1 rounded-full border border-emerald-700 px-2 py-0.5 text-xs font-medium text-emerald-800 dark:border-emerald-400 dark:text-emerald-300"
            title={`${namespace} proved it controls ${b.kind === "dns" ? "the domain" : "the GitHub organization"} ${b.label} (since ${b.verified_at.slice(0, 10)})`}
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className="h-3 w-3" fill="currentColor">
              <path d="M6.5 11.2 3.3 8l1.1-1.1 2.1 2.1 5.1-5.1L12.7 5z" />
            </svg>
            Verified <span className="font-mono">{b.label}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}
