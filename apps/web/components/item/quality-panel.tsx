/**
 * The item page's quality factors (each met or not, with how to meet it) and, for tools, the static safety report
 * the registry made at publish (GET /v1/quality; docs/quality.md). Private items: the visitor's session is forwarded,
 * and a visitor who may not read the item gets nothing (the page itself is a 404 for them).
 */
import type { ItemType, QualityResponse } from "@rye/core";
import { qualityResponseSchema } from "@rye/core";
import { apiParsedOrNull } from "@/lib/contracts";

const box = "rounded-lg border border-neutral-200 p-4 dark:border-neutral-800";
const encodeId = (id: string) => id.split("/").map(encodeURIComponent).join("/");

const CAPABILITY_LABEL = { network: "Network", file_read: "Reads files", file_write: "Writes files", process: "Runs processes" } as const;
const VERDICT = {
  ok: { label: "No findings", tone: "border-emerald-700 text-emerald-800 dark:border-emerald-400 dark:text-emerald-300" },
  review: { label: "Undeclared use", tone: "border-amber-700 text-amber-900 dark:border-amber-400 dark:text-amber-200" },
  danger: { label: "Dangerous patterns", tone: "border-red-700 text-red-800 dark:border-red-400 dark:text-red-300" },
} as const;

function Mark({ state }: { state: "met" | "missed" | "na" }) {
  const [glyph, text, tone] =
    state === "met" ? ["✓", "met", "text-emerald-700 dark:text-emerald-400"] : state === "missed" ? ["✗", "not met", "text-red-700 dark:text-red-400"] : ["–", "not applicable", "text-neutral-500"];
  return (
    <span className={`inline-block w-4 shrink-0 text-center font-semibold ${tone}`}>
      <span aria-hidden="true">{glyph}</span>
      <span className="sr-only">{text}: </span>
    </span>
  );
}

function QualitySection({ quality }: { quality: NonNullable<QualityResponse["quality"]> }) {
  return (
    <section aria-labelledby="quality-heading" className={`${box} space-y-2`} data-testid="quality-panel">
      <h2 id="quality-heading" className="flex items-baseline justify-between text-base font-semibold">
        Quality
        <span className="text-sm font-medium tabular-nums" data-testid="quality-score">
          {quality.score}
          <span className="text-neutral-600 dark:text-neutral-400"> / 100</span>
        </span>
      </h2>
      <ul className="space-y-1.5 text-xs">
        {quality.factors.map((f) => (
          <li key={f.id} className="flex gap-2" data-factor={f.id} data-met={f.applicable ? String(f.met) : "n/a"}>
            <Mark state={!f.applicable ? "na" : f.met ? "met" : "missed"} />
            <div className="min-w-0">
              <p className="font-medium">
                {f.label} <span className="font-normal text-neutral-600 dark:text-neutral-400">({f.points} points)</span>
              </p>
              <p className="text-neutral-700 dark:text-neutral-300">{f.detail}</p>
              {f.hint ? <p className="text-neutral-600 italic dark:text-neutral-400">How to meet it: {f.hint}</p> : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SafetySection({ safety, current }: { safety: NonNullable<QualityResponse["safety"]>; current: boolean }) {
  const verdict = VERDICT[safety.verdict];
  return (
    <section aria-labelledby="safety-heading" className={`${box} space-y-2`} data-testid="safety-panel">
      <h2 id="safety-heading" className="flex items-center justify-between gap-2 text-base font-semibold">
        Safety report
        <span className={`rounded-full border px-2 py-0.5 text-xs font-medium ${verdict.tone}`} data-testid="safety-verdict">
          {verdict.label}
        </span>
      </h2>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className="text-neutral-600 dark:text-neutral-400">Runtime</dt>
        <dd className="break-all font-mono">{safety.runtime.language}</dd>
        <dt className="text-neutral-600 dark:text-neutral-400">Tier</dt>
        <dd>
          {safety.tier_declared ? `${safety.tier} (declared)` : `${safety.tier} (none declared: the gate treats it as T3)`}
          {safety.effective_tier !== safety.tier ? `, ${safety.effective_tier} with the patterns found` : ""}
        </dd>
      </dl>
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Network, file and process use: declared by the tool against found in its code</caption>
        <thead>
          <tr>
            <th scope="col" className="font-medium">Use</th>
            <th scope="col" className="font-medium">Declared</th>
            <th scope="col" className="font-medium">Found</th>
          </tr>
        </thead>
        <tbody>
          {safety.capabilities.map((c) => (
            <tr key={c.capability} data-capability={c.capability} className={c.found && !c.declared ? "text-amber-900 dark:text-amber-200" : undefined}>
              <th scope="row" className="font-normal">{CAPABILITY_LABEL[c.capability]}</th>
              <td>{c.declared ? "yes" : "no"}</td>
              <td title={c.evidence.map((e) => `line ${e.line}: ${e.text}`).join("\n") || undefined}>
                {c.found ? `yes (line ${c.evidence.map((e) => e.line).join(", ")})` : "no"}
                {c.found && !c.declared ? <span className="sr-only"> — not declared</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {safety.dangerous.length > 0 ? (
        <div className="space-y-1 text-xs">
          <p className="font-medium">Dangerous patterns (the security gate&apos;s rules)</p>
          <ul className="space-y-1">
            {safety.dangerous.map((d) => (
              <li key={d.rule} data-rule={d.rule}>
                Line {d.line}: {d.description} <span className="text-neutral-600 dark:text-neutral-400">({d.rule}, {d.tier})</span>
                <code className="block overflow-x-auto rounded bg-neutral-100 px-1 font-mono dark:bg-neutral-900">{d.text}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="text-xs">No line matches the security gate&apos;s dangerous-pattern rules.</p>
      )}
      <p className="text-xs text-neutral-600 dark:text-neutral-400">
        Static screen at publish, rules {safety.rules_version}
        {current ? "" : " (older rules: being made again)"}. It reads lines; it cannot prove what the code does.
      </p>
    </section>
  );
}

export async function QualityPanel({ type, id, version }: { type: ItemType; id: string; version: string }) {
  const answer = await apiParsedOrNull(qualityResponseSchema, `/v1/quality/${type}/${encodeId(id)}?version=${encodeURIComponent(version)}`, { session: true });
  if (!answer || (!answer.quality && !answer.safety)) return null;
  return (
    <>
      {answer.quality ? <QualitySection quality={answer.quality} /> : null}
      {answer.safety ? <SafetySection safety={answer.safety} current={answer.safety_current} /> : null}
    </>
  );
}
