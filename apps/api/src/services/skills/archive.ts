/**
 * Deterministic archives of a skill's files, as the `skills` CLI and ordinary tools read them: `.tar.gz`
 * (ustar, regular files only) and `.zip` (deflate or stored, UTF-8 names). `SKILL.md` sits at the root, member
 * names never start with `./`, entries are sorted by path, every timestamp is the same fixed instant and
 * owners are 0, so the same files always give the same bytes (and the same digest in the discovery index).
 * Only the node:zlib primitives are used; the formats written are the small subsets described here.
 */
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import type { SkillFile } from "@rye/core";
import { MAX_SKILL_PATH_BYTES, RyeError } from "@rye/core";

/** 1980-01-01T00:00:00Z: the earliest instant a zip (MS-DOS) timestamp holds; tar uses the same one. */
export const ARCHIVE_EPOCH_SECONDS = 315_532_800;

const encoder = new TextEncoder();
const sorted = (files: readonly SkillFile[]) => [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

function memberName(path: string): Uint8Array {
  const name = encoder.encode(path);
  // Skill paths are checked on push (checkSkillFiles); this guards the archive format itself.
  if (name.length === 0 || name.length > MAX_SKILL_PATH_BYTES || path.startsWith("/") || path.startsWith("./") || path.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new RyeError("INTERNAL", `Cannot archive the path ${JSON.stringify(path)}`);
  }
  return name;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

function tarHeader(name: Uint8Array, size: number, executable: boolean): Uint8Array {
  const h = new Uint8Array(512);
  const put = (text: string, at: number) => h.set(encoder.encode(text), at);
  h.set(name, 0);
  put(octal(executable ? 0o755 : 0o644, 8), 100);
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(size, 12), 124);
  put(octal(ARCHIVE_EPOCH_SECONDS, 12), 136);
  put("        ", 148); // checksum placeholder: eight spaces while summing
  put("0", 156); // regular file
  put("ustar\0", 257);
  put("00", 263);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

/** `.tar.gz` of the files (gzip level 9, no name and mtime 0 in the gzip header). */
export function skillTarGz(files: readonly SkillFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const file of sorted(files)) {
    parts.push(tarHeader(memberName(file.path), file.bytes.length, file.executable === true), file.bytes);
    const pad = (512 - (file.bytes.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024)); // end of archive: two zero blocks
  return new Uint8Array(gzipSync(Buffer.concat(parts), { level: 9 }));
}

const DOS_TIME = 0; // 00:00:00
const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01
const UTF8_NAMES = 0x0800;
const UNIX_MADE_BY = (3 << 8) | 20;

/** `.zip` of the files: deflated when that is smaller, stored otherwise; Unix modes in the external attributes. */
export function skillZip(files: readonly SkillFile[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  let count = 0;
  for (const file of sorted(files)) {
    const name = memberName(file.path);
    const deflated = new Uint8Array(deflateRawSync(file.bytes, { level: 9 }));
    const stored = deflated.length >= file.bytes.length;
    const data = stored ? file.bytes : deflated;
    const crc = crc32(file.bytes) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(stored ? 0 : 8, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(file.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(UNIX_MADE_BY, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(UTF8_NAMES, 8);
    entry.writeUInt16LE(stored ? 0 : 8, 10);
    entry.writeUInt16LE(DOS_TIME, 12);
    entry.writeUInt16LE(DOS_DATE, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(file.bytes.length, 24);
    entry.writeUInt16LE(name.length, 28);
    // extra length, comment length, disk number, internal attributes: 0
    entry.writeUInt32LE(((file.executable ? 0o100755 : 0o100644) << 16) >>> 0, 38);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + data.length;
    count += 1;
  }
  const centralSize = central.reduce((n, part) => n + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, ...central, end]));
}
