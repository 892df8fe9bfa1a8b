/**
 * Progress of multi-file transfers on stderr: a bar redrawn in place on a terminal
 * (`pulling acme/kit 1.2.0  [#####.....] 12/24 files  340 KiB`), one plain summary line when stderr is
 * not a terminal, nothing at all in `--json` mode (stdout stays one JSON document).
 */

export interface ProgressState {
  /** What is going on, e.g. `pulling acme/kit 1.2.0`. */
  label: string;
  filesDone: number;
  /** Unknown while a download has not told yet. */
  filesTotal?: number | undefined;
  bytesDone: number;
  bytesTotal?: number | undefined;
}

/** Where a terminal bar is drawn (process.stderr). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export type ProgressMode = "tty" | "plain" | "silent";

/** `silent` for --json, `tty` on a terminal, else `plain`. */
export function progressMode(options: { json?: boolean | undefined; isTTY?: boolean | undefined }): ProgressMode {
  if (options.json) return "silent";
  return options.isTTY ? "tty" : "plain";
}

/** `512 B`, `3.4 KiB`, `340 KiB`, `12.5 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** `[#####.....]` for a fraction in [0, 1] (clamped; NaN counts as 0). */
export function renderBar(fraction: number, width = 10): string {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const filled = Math.floor(f * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
}

function fractionOf(state: ProgressState): number {
  if (state.filesTotal !== undefined && state.filesTotal > 0) return state.filesDone / state.filesTotal;
  if (state.bytesTotal !== undefined && state.bytesTotal > 0) return state.bytesDone / state.bytesTotal;
  return state.filesTotal === 0 ? 1 : 0;
}

/** One line of the bar; cut to `columns - 1` characters so a terminal never wraps it. */
export function renderProgressLine(state: ProgressState, options: { width?: number; columns?: number | undefined } = {}): string {
  const files = state.filesTotal !== undefined ? `${state.filesDone}/${state.filesTotal} files` : `${state.filesDone} files`;
  const bytes = state.filesTotal === undefined && state.bytesTotal !== undefined ? `${formatBytes(state.bytesDone)}/${formatBytes(state.bytesTotal)}` : formatBytes(state.bytesDone);
  const line = `${state.label}  ${renderBar(fractionOf(state), options.width)} ${files}  ${bytes}`;
  const max = options.columns !== undefined && options.columns > 1 ? options.columns - 1 : undefined;
  return max !== undefined && line.length > max ? line.slice(0, max) : line;
}

/** The plain one-line summary: `pulled acme/kit 1.2.0: 24 files, 340 KiB in 0.4 s`. */
export function renderSummary(label: string, state: Pick<ProgressState, "filesDone" | "bytesDone">, elapsedMs: number): string {
  const seconds = elapsedMs < 10_000 ? (elapsedMs / 1000).toFixed(1) : String(Math.round(elapsedMs / 1000));
  return `${label}: ${state.filesDone} ${state.filesDone === 1 ? "file" : "files"}, ${formatBytes(state.bytesDone)} in ${seconds} s`;
}

export interface ProgressReporterOptions {
  mode: ProgressMode;
  /** The terminal to draw on (tty mode). */
  stream?: ProgressStream | undefined;
  /** Writes the summary line in plain mode (the CLI's stderr). */
  plain?: ((line: string) => void) | undefined;
  /** Minimum time between two redraws; the first and last state are always drawn. */
  intervalMs?: number;
  now?: () => number;
}

const CLEAR_TO_END = "\x1b[K";

/** Draws progress for one transfer; `finish` or `fail` ends it. */
export class ProgressReporter {
  private readonly started: number;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private last: ProgressState | undefined;
  private drawn = false;
  private ended = false;

  constructor(private readonly options: ProgressReporterOptions) {
    this.started = this.now();
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  private draw(state: ProgressState): void {
    const stream = this.options.stream;
    if (!stream) return;
    stream.write(`\r${renderProgressLine(state, { columns: stream.columns })}${CLEAR_TO_END}`);
    this.drawn = true;
    this.lastDraw = this.now();
  }

  update(state: ProgressState): void {
    if (this.ended) return;
    this.last = state;
    if (this.options.mode !== "tty") return;
    if (this.now() - this.lastDraw < (this.options.intervalMs ?? 80)) return;
    this.draw(state);
  }

  /** Ends with the final state: the bar is completed on a terminal, the summary line is written otherwise. */
  finish(summaryLabel: string, state: ProgressState | undefined = this.last): void {
    if (this.ended) return;
    this.ended = true;
    const final = state ?? { label: summaryLabel, filesDone: 0, bytesDone: 0 };
    if (this.options.mode === "tty") {
      this.draw(final);
      this.options.stream?.write("\n");
    } else if (this.options.mode === "plain") {
      this.options.plain?.(renderSummary(summaryLabel, final, this.now() - this.started));
    }
  }

  /** Ends without a summary; a bar already drawn is erased so the error message starts on a clean line. */
  fail(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.options.mode === "tty" && this.drawn) this.options.stream?.write(`\r${CLEAR_TO_END}`);
  }
}
