import { ClientApiError } from "@/lib/client-api";

/** What went wrong, as the registry said it: message, hint and the per-field details it listed. */
export interface Problem {
  status: number;
  code: string;
  message: string;
  hint?: string | undefined;
  fields: { field: string; message: string }[];
}

/** Hints for answers the API sends without one, so the person always knows what to do next. */
const FALLBACK_HINTS: Record<string, string> = {
  VERSION_EXISTS: "Versions are immutable: raise the version in the item's metadata, then publish again.",
  PAYLOAD_TOO_LARGE: "Make the item smaller, or ask the registry's operator about RYE_MAX_ITEM_BYTES.",
  UNAUTHORIZED: "Your session ended: sign in again (your key stays loaded in this tab).",
  RATE_LIMITED: "Wait a minute, then try again.",
  NETWORK: "Check your connection and try again.",
};

export function problemOf(err: unknown): Problem {
  if (err instanceof ClientApiError) {
    const fields = Array.isArray(err.details)
      ? err.details.filter((d): d is { field: string; message: string } => !!d && typeof d === "object" && typeof (d as { message?: unknown }).message === "string").map((d) => ({ field: String(d.field ?? ""), message: d.message }))
      : [];
    return { status: err.status, code: err.code, message: err.message, hint: err.hint ?? FALLBACK_HINTS[err.code], fields };
  }
  return { status: 0, code: "ERROR", message: err instanceof Error ? err.message : String(err), fields: [] };
}

/** An error panel; role="alert" (read out when it appears) unless it sits in an aria-live region already. */
export function ErrorBox({ problem, title, announce = true }: { problem: Problem; title?: string; announce?: boolean }) {
  return (
    <div role={announce ? "alert" : undefined} className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">
        {title ? `${title}: ` : ""}
        {problem.message}
        {problem.status ? <span className="ml-1 font-mono text-xs">({problem.status} {problem.code})</span> : null}
      </p>
      {problem.fields.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {problem.fields.map((f, i) => (
            <li key={i}>
              {f.field ? <span className="font-mono">{f.field}</span> : "item"}: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {problem.hint ? <p className="mt-1">Hint: {problem.hint}</p> : null}
    </div>
  );
}
