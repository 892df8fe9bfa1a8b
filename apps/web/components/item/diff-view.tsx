/**
 * A unified line diff between two versions, as a table: old and new line numbers, the change in words
 * (for screen readers) and as +/- (on screen), and the line. Colour only repeats what the text says.
 */
import { formatUnified, type LineDiff } from "@/lib/diff";
import { CopyButton } from "@/components/copy-button";

export function DiffView({ diff, from, to, fileName }: { diff: LineDiff; from: string; to: string; fileName: string }) {
  if (diff.identical) {
    return <p className="rounded-md border border-neutral-200 p-4 text-sm dark:border-neutral-800">Versions {from} and {to} have identical files.</p>;
  }
  if (diff.tooLarge) {
    return <p className="rounded-md border border-neutral-200 p-4 text-sm dark:border-neutral-800">The two versions differ too much to show a line diff here.</p>;
  }
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          <span className="font-medium text-green-800 dark:text-green-300">+{diff.added}</span> {diff.added === 1 ? "line" : "lines"} added,{" "}
          <span className="font-medium text-red-800 dark:text-red-300">−{diff.removed}</span> removed
        </p>
        <CopyButton text={formatUnified(diff, `${fileName} ${from}`, `${fileName} ${to}`)} label={`Copy the diff from ${from} to ${to}`} />
      </div>
      <div className="overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800" tabIndex={0} role="region" aria-label={`Changes from ${from} to ${to}`}>
        <table className="w-full border-collapse font-mono text-xs leading-5">
          <caption className="sr-only">
            Unified diff of {fileName} from version {from} to version {to}: {diff.added} lines added, {diff.removed} removed
          </caption>
          <thead className="sr-only">
            <tr>
              <th scope="col">Line in {from}</th>
              <th scope="col">Line in {to}</th>
              <th scope="col">Change</th>
              <th scope="col">Text</th>
            </tr>
          </thead>
          {diff.hunks.map((hunk, h) => (
            <tbody key={h}>
              <tr className="bg-neutral-100 text-neutral-700 dark:bg-neutral-900 dark:text-neutral-300">
                <td colSpan={4} className="px-3 py-1">
                  {hunk.header}
                </td>
              </tr>
              {hunk.lines.map((line, i) => {
                const tone =
                  line.kind === "add"
                    ? "bg-green-50 text-green-950 dark:bg-green-950/60 dark:text-green-100"
                    : line.kind === "remove"
                      ? "bg-red-50 text-red-950 dark:bg-red-950/60 dark:text-red-100"
                      : "";
                return (
                  <tr key={i} className={tone}>
                    <td className="w-10 select-none px-2 text-right text-neutral-600 dark:text-neutral-400">{line.oldNumber ?? ""}</td>
                    <td className="w-10 select-none px-2 text-right text-neutral-600 dark:text-neutral-400">{line.newNumber ?? ""}</td>
                    <td className="w-5 select-none text-center">
                      <span aria-hidden="true">{line.kind === "add" ? "+" : line.kind === "remove" ? "−" : ""}</span>
                      <span className="sr-only">{line.kind === "add" ? "added" : line.kind === "remove" ? "removed" : "unchanged"}</span>
                    </td>
                    <td className="whitespace-pre px-2">{line.text}</td>
                  </tr>
                );
              })}
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}
