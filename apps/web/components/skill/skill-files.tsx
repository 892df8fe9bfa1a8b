/**
 * A skill's files on its page: the tree (SKILL.md, scripts/, references/, assets/…) with scripts marked as code
 * that runs, one file's content (text through the highlighted SourceView, binary files by size only) and the
 * per-file changes between two versions (DiffView). Content is always rendered as text: nothing from a skill runs
 * in the browser or is inserted as HTML.
 */
import Link from "next/link";
import { itemHref } from "@/components/item/data";
import { DiffView } from "@/components/item/diff-view";
import { SourceView } from "@/components/item/source-view";
import { lineDiff } from "@/lib/diff";

export interface SkillFileEntry {
  path: string;
  sha256: string;
  size: number;
  executable: boolean;
  content_base64?: string;
}

/** Largest text file shown or diffed on the page (larger ones are listed with their size). */
export const MAX_SHOWN_BYTES = 512 * 1024;

/** A script: under scripts/ or executable (an agent may run it). */
export const isScript = (f: Pick<SkillFileEntry, "path" | "executable">) => f.executable || f.path.startsWith("scripts/");

/** The file's text when it is UTF-8 without NUL bytes, else null (binary). */
export function textOf(file: SkillFileEntry): string | null {
  if (file.content_base64 === undefined) return null;
  const bytes = Buffer.from(file.content_base64, "base64");
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot) : null;
};

function ScriptBadge() {
  return (
    <span className="inline-flex shrink-0 items-center rounded-full border border-amber-700 bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100">
      Script: runs as code
    </span>
  );
}

interface TreeNode {
  name: string;
  path: string;
  file?: SkillFileEntry;
  children: Map<string, TreeNode>;
}

function buildTree(files: SkillFileEntry[]): TreeNode {
  const root: TreeNode = { name: "", path: "", children: new Map() };
  for (const file of files) {
    const parts = file.path.split("/");
    let node = root;
    parts.forEach((part, i) => {
      const path = parts.slice(0, i + 1).join("/");
      let child = node.children.get(part);
      if (!child) {
        child = { name: part, path, children: new Map() };
        node.children.set(part, child);
      }
      if (i === parts.length - 1) child.file = file;
      node = child;
    });
  }
  return root;
}

/** Files first at each level (SKILL.md on top), then folders, each by name. */
function sorted(node: TreeNode): TreeNode[] {
  return [...node.children.values()].sort((a, b) => {
    if (a.path === "SKILL.md") return -1;
    if (b.path === "SKILL.md") return 1;
    if (Boolean(a.file) !== Boolean(b.file)) return a.file ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

function TreeLevel({ node, href, selected }: { node: TreeNode; href: (path: string) => string; selected: string | null }) {
  return (
    <ul className="space-y-1">
      {sorted(node).map((child) =>
        child.file ? (
          <li
            key={child.path}
            data-testid="skill-file"
            data-path={child.path}
            data-script={isScript(child.file) ? "true" : undefined}
            className={`flex flex-wrap items-center justify-between gap-2 rounded px-2 py-1 ${isScript(child.file) ? "border-l-4 border-amber-600 bg-amber-50/60 dark:border-amber-400 dark:bg-amber-950/40" : ""} ${selected === child.path ? "ring-1 ring-brand-600 dark:ring-brand-300" : ""}`}
          >
            <span className="flex min-w-0 items-center gap-2">
              <Link href={href(child.path)} className="min-w-0 truncate font-mono underline" aria-current={selected === child.path ? "true" : undefined} scroll={false}>
                {child.name}
              </Link>
              {isScript(child.file) ? <ScriptBadge /> : null}
              {child.file.executable ? <span className="text-xs text-neutral-700 dark:text-neutral-300">executable</span> : null}
            </span>
            <span className="shrink-0 text-xs text-neutral-600 dark:text-neutral-300">{formatSize(child.file.size)}</span>
          </li>
        ) : (
          <li key={child.path}>
            <span className="font-mono font-medium">
              <span aria-hidden="true">▸ </span>
              <span>{child.name}/</span>
            </span>
            <div className="ml-4 mt-1 border-l border-neutral-200 pl-2 dark:border-neutral-700">
              <TreeLevel node={child} href={href} selected={selected} />
            </div>
          </li>
        ),
      )}
    </ul>
  );
}

export function SkillFileTree({ id, version, files, selected }: { id: string; version?: string; files: SkillFileEntry[]; selected: string | null }) {
  const href = (path: string) => `${itemHref("skill", id, { version, file: path })}#file-view`;
  return (
    <nav aria-label="Skill files" className="text-sm">
      <TreeLevel node={buildTree(files)} href={href} selected={selected} />
    </nav>
  );
}

/** One file: highlighted text, or its size when binary or too large; scripts say that they run. */
export async function SkillFileView({ file, version }: { file: SkillFileEntry; version: string }) {
  const text = file.size <= MAX_SHOWN_BYTES ? textOf(file) : null;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono text-base font-semibold break-all">{file.path}</h3>
        {isScript(file) ? <ScriptBadge /> : null}
        <span className="text-xs text-neutral-600 dark:text-neutral-300">
          {formatSize(file.size)} · SHA-256 <code className="font-mono">{file.sha256.slice(0, 16)}…</code>
        </span>
      </div>
      {isScript(file) ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-300">An agent using this skill may run this file on your machine. It is shown here as text and never runs in your browser.</p>
      ) : null}
      {text !== null ? (
        <SourceView content={text} extension={extensionOf(file.path)} label={`${file.path}, version ${version}`} />
      ) : (
        <p className="rounded-md border border-neutral-200 p-3 text-sm dark:border-neutral-800">
          {file.size > MAX_SHOWN_BYTES ? "Too large to show here" : "Binary file"} ({formatSize(file.size)}): not shown.
        </p>
      )}
    </div>
  );
}

type Change = { path: string; kind: "added" | "removed" | "changed"; before?: SkillFileEntry; after?: SkillFileEntry };

/** Files added, removed and changed (by SHA-256 or execute bit) between two versions, in path order. */
export function skillFileChanges(before: SkillFileEntry[], after: SkillFileEntry[]): { changes: Change[]; unchanged: number } {
  const a = new Map(before.map((f) => [f.path, f]));
  const b = new Map(after.map((f) => [f.path, f]));
  const changes: Change[] = [];
  let unchanged = 0;
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(path);
    const y = b.get(path);
    if (x && !y) changes.push({ path, kind: "removed", before: x });
    else if (!x && y) changes.push({ path, kind: "added", after: y });
    else if (x && y && (x.sha256 !== y.sha256 || x.executable !== y.executable)) changes.push({ path, kind: "changed", before: x, after: y });
    else unchanged++;
  }
  return { changes, unchanged };
}

const KIND_STYLE: Record<Change["kind"], string> = {
  added: "border-green-700 text-green-800 dark:border-green-400 dark:text-green-300",
  removed: "border-red-700 text-red-800 dark:border-red-400 dark:text-red-300",
  changed: "border-amber-700 text-amber-900 dark:border-amber-400 dark:text-amber-200",
};

export function SkillDiff({ from, to, before, after }: { from: string; to: string; before: SkillFileEntry[]; after: SkillFileEntry[] }) {
  const { changes, unchanged } = skillFileChanges(before, after);
  if (changes.length === 0) return <p className="rounded-md border border-neutral-200 p-4 text-sm dark:border-neutral-800">Versions {from} and {to} have identical files.</p>;
  return (
    <div className="space-y-4">
      <ul className="space-y-1 text-sm" aria-label="Changed files">
        {changes.map((c) => (
          <li key={c.path} className="flex flex-wrap items-center gap-2" data-testid="diff-file" data-path={c.path} data-kind={c.kind}>
            <span className={`inline-block rounded border px-1.5 text-xs font-medium ${KIND_STYLE[c.kind]}`}>{c.kind === "added" ? "Added" : c.kind === "removed" ? "Removed" : "Changed"}</span>
            <a href={`#diff-${encodeURIComponent(c.path)}`} className="font-mono underline">
              {c.path}
            </a>
            {isScript(c.after ?? c.before!) ? <ScriptBadge /> : null}
          </li>
        ))}
      </ul>
      {unchanged > 0 ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          {unchanged} {unchanged === 1 ? "file" : "files"} unchanged.
        </p>
      ) : null}
      {changes.map((c) => {
        const oldText = c.before ? (c.before.size <= MAX_SHOWN_BYTES ? textOf(c.before) : null) : "";
        const newText = c.after ? (c.after.size <= MAX_SHOWN_BYTES ? textOf(c.after) : null) : "";
        const modeOnly = c.kind === "changed" && c.before!.sha256 === c.after!.sha256;
        return (
          <section key={c.path} id={`diff-${encodeURIComponent(c.path)}`} aria-label={`Changes to ${c.path}`} className="space-y-2">
            <h3 className="font-mono text-sm font-semibold break-all">
              {c.path} <span className="font-sans font-normal text-neutral-700 dark:text-neutral-300">({c.kind})</span>
            </h3>
            {modeOnly ? (
              <p className="text-sm">Only the execute bit changed: {c.after!.executable ? "now executable" : "no longer executable"}.</p>
            ) : oldText === null || newText === null ? (
              <p className="text-sm">
                Binary or large file: {c.before ? formatSize(c.before.size) : "none"} → {c.after ? formatSize(c.after.size) : "none"}.
              </p>
            ) : (
              <DiffView diff={lineDiff(oldText, newText)} from={from} to={to} fileName={c.path} />
            )}
          </section>
        );
      })}
    </div>
  );
}
