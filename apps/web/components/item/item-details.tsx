/**
 * What an item declares, read from its file with @rye/core parseItem: a directive's inputs, outputs,
 * permissions, capabilities, limits and model; a tool's type, parameters (CONFIG_SCHEMA) and executor
 * chain; knowledge's title, entry type and tags. Everything is rendered as text.
 */
import Link from "next/link";
import type { ReactNode } from "react";
import type { ParsedItem } from "@rye/core";
import type { ExecutorChain } from "./data";
import { itemHref, MAX_CHAIN_LINKS } from "./data";

const th = "px-3 py-2 text-left text-xs font-semibold text-neutral-700 dark:text-neutral-300";
const td = "px-3 py-2 align-top text-sm";

export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-2">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Table({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <div className="overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800">
      <table className="w-full border-collapse">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-neutral-50 dark:bg-neutral-900">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className={th}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
          {rows.map((row, i) => (
            <tr key={i}>
              {row.map((cell, j) => (
                <td key={j} className={td}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyValues({ entries, label }: { entries: [string, ReactNode][]; label: string }) {
  if (entries.length === 0) return null;
  return (
    <dl aria-label={label} className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">{k}</dt>
          <dd className="min-w-0 break-words">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

const text = (value: unknown): string => (typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value));
const code = (value: string) => <code className="rounded bg-neutral-100 px-1 font-mono text-xs dark:bg-neutral-900">{value}</code>;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** CONFIG_SCHEMA properties as rows: name, type, required, description (with default and allowed values). */
function schemaRows(schema: unknown): { name: string; type: string; required: boolean; description: string }[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const prop = isRecord(raw) ? raw : {};
    const type = Array.isArray(prop.type) ? prop.type.map(String).join(" | ") : text(prop.type) || (prop.enum ? "enum" : "any");
    const parts = [text(prop.description)];
    if (Array.isArray(prop.enum)) parts.push(`One of: ${prop.enum.map((v) => JSON.stringify(v)).join(", ")}.`);
    if (prop.default !== undefined) parts.push(`Default: ${JSON.stringify(prop.default)}.`);
    if (typeof prop.pattern === "string") parts.push(`Pattern: ${prop.pattern}`);
    return { name, type, required: required.has(name), description: parts.filter(Boolean).join(" ") };
  });
}

export function DirectiveDetails({ parsed }: { parsed: Extract<ParsedItem, { type: "directive" }> }) {
  const m = parsed.metadata;
  const limits = Object.entries(m.limits ?? {});
  const model = Object.entries(m.model ?? {});
  return (
    <>
      {m.inputs.length > 0 ? (
        <Section id="inputs-heading" title="Inputs">
          <Table
            caption="Inputs of the directive"
            head={["Name", "Type", "Required", "Description"]}
            rows={m.inputs.map((input) => [
              code(input.name),
              input.type,
              input.required ? "Required" : "Optional",
              <>
                {input.description}
                {input.default !== undefined ? <span className="block text-xs text-neutral-600 dark:text-neutral-400">Default: {input.default}</span> : null}
              </>,
            ])}
          />
        </Section>
      ) : null}
      {m.outputs.length > 0 ? (
        <Section id="outputs-heading" title="Outputs">
          <Table caption="Outputs of the directive" head={["Name", "Description"]} rows={m.outputs.map((o) => [code(o.name), o.description])} />
        </Section>
      ) : null}
      {m.permissions.length > 0 || m.capabilities.length > 0 ? (
        <Section id="permissions-heading" title="Permissions">
          {m.permissions.length > 0 ? (
            <Table
              caption="Permissions the directive asks for"
              head={["Action", "Item type", "Pattern"]}
              rows={m.permissions.map((p) => [p.primary, p.itemType ?? "any", code(p.pattern)])}
            />
          ) : null}
          {m.capabilities.length > 0 ? (
            <ul aria-label="Capabilities" className="flex flex-wrap gap-2">
              {m.capabilities.map((c) => (
                <li key={c}>{code(c)}</li>
              ))}
            </ul>
          ) : null}
        </Section>
      ) : null}
      {limits.length > 0 || model.length > 0 ? (
        <Section id="limits-heading" title="Limits and model">
          <KeyValues label="Limits" entries={limits.map(([k, v]) => [k, String(v)])} />
          <KeyValues label="Model" entries={model.map(([k, v]) => [`model ${k}`, String(v)])} />
        </Section>
      ) : null}
    </>
  );
}

export function ToolDetails({ parsed, chain }: { parsed: Extract<ParsedItem, { type: "tool" }>; chain: ExecutorChain }) {
  const m = parsed.metadata;
  const params = schemaRows(m.config_schema);
  const env = isRecord(m.env_config) ? Object.keys(m.env_config) : [];
  return (
    <>
      <Section id="parameters-heading" title="Parameters">
        {params.length > 0 ? (
          <Table
            caption="Parameters (CONFIG_SCHEMA)"
            head={["Parameter", "Type", "Required", "Description"]}
            rows={params.map((p) => [code(p.name), p.type, p.required ? "Required" : "Optional", p.description])}
          />
        ) : (
          <p className="text-sm text-neutral-700 dark:text-neutral-300">This tool declares no parameters (no CONFIG_SCHEMA properties).</p>
        )}
        {env.length > 0 ? <p className="text-sm">Environment: {env.map((k, i) => <span key={k}>{i ? ", " : ""}{code(k)}</span>)}</p> : null}
      </Section>
      <Section id="chain-heading" title="Executor chain">
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          rye runs a tool through its executor chain (tool → runtime → primitive), verifying every element first.
        </p>
        <ol className="space-y-2 border-l-2 border-neutral-200 pl-4 dark:border-neutral-800">
          <li className="text-sm">
            <span className="font-medium">This tool</span>
            {parsed.summary.toolType ? <span className="text-neutral-600 dark:text-neutral-400"> ({parsed.summary.toolType})</span> : null}
            {parsed.summary.executorId === null ? <span> is a primitive: it runs directly.</span> : null}
          </li>
          {chain.links.map((link, i) => (
            <li key={`${link.executorId}-${i}`} className="text-sm">
              <span className="sr-only">runs on </span>
              <span aria-hidden="true">↳ </span>
              {link.registryId ? (
                <Link href={itemHref("tool", link.registryId)} className="font-mono text-xs underline">
                  {link.executorId}
                </Link>
              ) : (
                <code className="font-mono text-xs">{link.executorId}</code>
              )}
              {link.version ? <span className="text-neutral-600 dark:text-neutral-400"> {link.version}</span> : null}
              {link.toolType ? <span className="text-neutral-600 dark:text-neutral-400"> ({link.toolType})</span> : null}
              {link.description ? <span className="block text-xs text-neutral-600 dark:text-neutral-400">{link.description}</span> : null}
              {!link.registryId ? <span className="block text-xs text-neutral-600 dark:text-neutral-400">Not published in this registry (resolved from the local spaces when run).</span> : null}
            </li>
          ))}
        </ol>
        {chain.stop === "cycle" ? <p className="text-sm text-red-800 dark:text-red-300">The chain loops back on itself: rye refuses to run it.</p> : null}
        {chain.stop === "too-long" ? <p className="text-sm text-red-800 dark:text-red-300">The chain is longer than {MAX_CHAIN_LINKS} links: rye refuses to run it.</p> : null}
      </Section>
    </>
  );
}

export function KnowledgeDetails({ parsed }: { parsed: Extract<ParsedItem, { type: "knowledge" }> }) {
  const fm = parsed.metadata.frontmatter;
  const tags = parsed.summary.tags ?? [];
  const entries: [string, ReactNode][] = [];
  if (parsed.summary.title) entries.push(["Title", parsed.summary.title]);
  if (text(fm.entry_type)) entries.push(["Entry type", text(fm.entry_type)]);
  if (tags.length) entries.push(["Tags", tags.join(", ")]);
  if (entries.length === 0) return null;
  return (
    <Section id="about-heading" title="About this entry">
      <KeyValues label="Knowledge entry" entries={entries} />
    </Section>
  );
}
