/**
 * Unpacking a skill archive (`.tar.gz` or `.zip`, as the discovery specification requires) into memory, never to
 * disk: every entry is checked before it is kept — a regular file or a directory only (links and devices refused),
 * a safe relative path, within the per-file, total and count limits (checked while decompressing, so a
 * decompression bomb stops at the cap). `SKILL.md` must be at the root. A `.rye/manifest.yaml` in the archive is
 * returned apart (a rye-signed folder packed by someone else); anything else under `.rye/` is refused.
 */
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import type { SkillFile } from "@rye/core";
import { MAX_SKILL_FILE_BYTES, MAX_SKILL_FILES, MAX_SKILL_TOTAL_BYTES, RyeError, SKILL_MANIFEST_PATH, skillPathProblem } from "@rye/core";
import tarStream from "tar-stream";
import yauzl from "yauzl";

export type ArchiveFormat = "tar.gz" | "zip";

export interface UnpackedSkill {
  files: SkillFile[];
  /** `.rye/manifest.yaml` when the archive carries one. */
  manifest?: string;
}

/** The format from the bytes themselves (gzip or zip magic), or null. */
export function sniffArchive(bytes: Uint8Array): ArchiveFormat | null {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return "tar.gz";
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return "zip";
  return null;
}

const refused = (source: string, path: string, why: string) =>
  new RyeError("PATH_TRAVERSAL", `The archive of ${source} holds ${JSON.stringify(path)}: ${why}; nothing was written`, {
    hint: "Skill archives may hold only regular files at safe relative paths (no links, no '..', no absolute paths).",
  });
const tooLarge = (source: string, what: string) =>
  new RyeError("PAYLOAD_TOO_LARGE", `The archive of ${source} is too large: ${what}; nothing was written`, {
    hint: `Skills hold at most ${MAX_SKILL_FILES} files, ${MAX_SKILL_FILE_BYTES} bytes per file and ${MAX_SKILL_TOTAL_BYTES} bytes in all.`,
  });

/** Collects entries with the shared checks. */
class Collector {
  readonly files: SkillFile[] = [];
  manifest: string | undefined;
  private total = 0;
  constructor(private readonly source: string) {}

  /** The normalised path of a file entry, or throws; null for entries to skip (directories). */
  accept(rawPath: string, kind: "file" | "directory" | "other", declaredSize?: number): string | null {
    const path = rawPath.startsWith("./") ? rawPath.slice(2) : rawPath;
    if (kind === "other") throw refused(this.source, rawPath, "it is a link or a special file");
    if (kind === "directory") {
      const dir = path.replace(/\/+$/, "");
      if (dir === "" || dir === ".rye") return null;
      const problem = skillPathProblem(dir);
      if (problem) throw refused(this.source, rawPath, problem);
      return null;
    }
    if (path !== SKILL_MANIFEST_PATH) {
      const problem = skillPathProblem(path);
      if (problem) throw refused(this.source, rawPath, problem);
    }
    if (this.files.length >= MAX_SKILL_FILES) throw tooLarge(this.source, `more than ${MAX_SKILL_FILES} files`);
    if (declaredSize !== undefined && declaredSize > MAX_SKILL_FILE_BYTES) throw tooLarge(this.source, `${path} is ${declaredSize} bytes`);
    return path;
  }

  /** Counts bytes as they are decompressed. */
  count(path: string, size: number, fileSoFar: number): void {
    this.total += size;
    if (fileSoFar > MAX_SKILL_FILE_BYTES) throw tooLarge(this.source, `${path} is larger than ${MAX_SKILL_FILE_BYTES} bytes`);
    if (this.total > MAX_SKILL_TOTAL_BYTES) throw tooLarge(this.source, `more than ${MAX_SKILL_TOTAL_BYTES} bytes unpacked`);
  }

  keep(path: string, bytes: Uint8Array, executable: boolean): void {
    if (path === SKILL_MANIFEST_PATH) {
      this.manifest = new TextDecoder().decode(bytes);
      return;
    }
    if (this.files.some((f) => f.path === path)) throw refused(this.source, path, "it appears twice");
    this.files.push({ path, bytes, ...(executable ? { executable: true } : {}) });
  }

  done(): UnpackedSkill {
    if (!this.files.some((f) => f.path === "SKILL.md")) {
      throw new RyeError("VALIDATION_FAILED", `The archive of ${this.source} has no SKILL.md at its root; nothing was written`, { hint: "A skill archive holds SKILL.md at the root, not inside a folder." });
    }
    this.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files: this.files, ...(this.manifest !== undefined ? { manifest: this.manifest } : {}) };
  }
}

async function readTarGz(bytes: Uint8Array, source: string): Promise<UnpackedSkill> {
  let tar: Buffer;
  try {
    // A ustar header and padding take at most 1 KiB per entry on top of the content.
    tar = gunzipSync(bytes, { maxOutputLength: MAX_SKILL_TOTAL_BYTES + (MAX_SKILL_FILES + 2) * 1024 });
  } catch (err) {
    if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(source, `more than ${MAX_SKILL_TOTAL_BYTES} bytes unpacked`);
    throw new RyeError("MALFORMED_RESPONSE", `The archive of ${source} is not valid gzip: ${err instanceof Error ? err.message : String(err)}`, { hint: "The host must serve the .tar.gz file itself." });
  }
  const collector = new Collector(source);
  const extract = tarStream.extract();
  const finished = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, stream, next) => {
      const kind = header.type === "file" || header.type === "contiguous-file" ? "file" : header.type === "directory" ? "directory" : "other";
      let path: string | null;
      try {
        path = collector.accept(header.name, kind, header.size);
      } catch (err) {
        stream.resume();
        reject(err);
        extract.destroy();
        return;
      }
      if (path === null) {
        stream.on("end", next);
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (data: unknown) => {
        const chunk = data as Buffer;
        size += chunk.length;
        try {
          collector.count(path, chunk.length, size);
        } catch (err) {
          reject(err);
          extract.destroy();
          return;
        }
        chunks.push(chunk);
      });
      stream.on("end", () => {
        collector.keep(path, new Uint8Array(Buffer.concat(chunks)), ((header.mode ?? 0) & 0o111) !== 0);
        next();
      });
    });
    extract.on("finish", resolve);
    extract.on("error", (err: Error) =>
      reject(err instanceof RyeError ? err : new RyeError("MALFORMED_RESPONSE", `The archive of ${source} is not a valid tar file: ${err.message}`, { hint: "The host must serve a .tar.gz of the skill's files." })),
    );
  });
  Readable.from([tar]).pipe(extract);
  await finished;
  return collector.done();
}

function openZip(bytes: Uint8Array): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true }, (err, zip) => (err || !zip ? reject(err ?? new Error("no zip")) : resolve(zip)));
  });
}

async function readZip(bytes: Uint8Array, source: string): Promise<UnpackedSkill> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(bytes);
  } catch (err) {
    throw new RyeError("MALFORMED_RESPONSE", `The archive of ${source} is not a valid zip file: ${err instanceof Error ? err.message : String(err)}`, { hint: "The host must serve the .zip file itself." });
  }
  const collector = new Collector(source);
  await new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.close();
      // yauzl checks names itself (with validateFileName) before an entry reaches the collector.
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof RyeError) && /invalid relative path|absolute path|invalid characters in fileName/i.test(message)) {
        return reject(refused(source, message.replace(/^.*?: /, ""), "it leaves the skill folder"));
      }
      reject(err instanceof RyeError ? err : new RyeError("MALFORMED_RESPONSE", `The archive of ${source} is not a valid zip file: ${err instanceof Error ? err.message : String(err)}`, { hint: "The host must serve a .zip of the skill's files." }));
    };
    zip.on("error", fail);
    zip.on("end", resolve);
    zip.on("entry", (entry: yauzl.Entry) => {
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      const isDir = entry.fileName.endsWith("/");
      const kind = isDir ? "directory" : mode === 0 || mode === 0o100000 ? "file" : "other";
      let path: string | null;
      try {
        path = collector.accept(entry.fileName, kind, entry.uncompressedSize);
      } catch (err) {
        return fail(err);
      }
      if (path === null) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err || !stream) return fail(err);
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
          try {
            collector.count(path, chunk.length, size);
          } catch (e) {
            stream.destroy();
            return fail(e);
          }
          chunks.push(chunk);
        });
        stream.on("error", fail);
        stream.on("end", () => {
          try {
            collector.keep(path, new Uint8Array(Buffer.concat(chunks)), ((entry.externalFileAttributes >>> 16) & 0o111) !== 0);
          } catch (e) {
            return fail(e);
          }
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return collector.done();
}

/** Unpacks a skill archive held in memory. `source` names it in errors. */
export async function unpackSkillArchive(bytes: Uint8Array, format: ArchiveFormat, source: string): Promise<UnpackedSkill> {
  return format === "zip" ? readZip(bytes, source) : readTarGz(bytes, source);
}
