/**
 * POST <prefix>/add-checkpoint of C2SP tlog-witness (https://c2sp.org/tlog-witness): the request body is
 * `old <size>\n`, zero or more base64 consistency-proof lines, an empty line, then the checkpoint (a signed note).
 * The answer is the witness's cosignature line, or one of the spec's statuses with a plain-text reason:
 * 400 malformed (or old > size), 403 no trusted log signature verifies, 404 unknown origin, 409 the old size is not
 * the size this witness last cosigned (body: that size, `text/x.tlog.size`) or the same size with another root,
 * 422 the consistency proof does not verify. Limits: `WITNESS_LIMITS` (413 beyond the body size).
 */
import type { KeyPair } from "@rye/core";
import { bytesEqual, fromBase64, openNote, parseCheckpoint, parseNote, signCosignature, toBase64, verifyConsistency } from "@rye/core";
import type { WitnessedLog } from "./identity.ts";
import type { WitnessState } from "./state.ts";

export const WITNESS_LIMITS = {
  /** A checkpoint with a hundred signatures and a full proof stays far below. */
  maxBodyBytes: 64 * 1024,
  /** tlog-witness: a client MUST NOT send more than 63 proof lines. */
  maxProofLines: 63,
  /** Any one line of the request (an origin line, a signature line). */
  maxLineBytes: 4096,
} as const;

export interface WitnessAnswer {
  status: 200 | 400 | 403 | 404 | 409 | 413 | 422 | 500;
  contentType: "text/plain; charset=utf-8" | "text/x.tlog.size";
  body: string;
}

const text = (status: WitnessAnswer["status"], body: string): WitnessAnswer => ({ status, contentType: "text/plain; charset=utf-8", body: `${body}\n` });
const size = (value: number): WitnessAnswer => ({ status: 409, contentType: "text/x.tlog.size", body: `${value}\n` });

interface Request {
  old: number;
  proof: Uint8Array[];
  note: string;
}

function parseRequest(body: string): Request | string {
  if (body.split("\n").some((line) => Buffer.byteLength(line) > WITNESS_LIMITS.maxLineBytes)) return `a line is longer than ${WITNESS_LIMITS.maxLineBytes} bytes`;
  const split = body.indexOf("\n\n");
  if (split === -1) return "no empty line before the checkpoint";
  const [oldLine, ...proofLines] = body.slice(0, split).split("\n") as [string, ...string[]];
  const old = /^old (0|[1-9][0-9]{0,15})$/.exec(oldLine);
  if (!old || !Number.isSafeInteger(Number(old[1]))) return "the first line is not `old <size>`";
  if (proofLines.length > WITNESS_LIMITS.maxProofLines) return `more than ${WITNESS_LIMITS.maxProofLines} consistency proof lines`;
  const proof: Uint8Array[] = [];
  for (const line of proofLines) {
    let hash: Uint8Array;
    try {
      hash = fromBase64(line);
    } catch {
      return "a consistency proof line is not base64";
    }
    if (hash.length !== 32 || toBase64(hash) !== line) return "a consistency proof line is not one base64 SHA-256 hash";
    proof.push(hash);
  }
  return { old: Number(old[1]), proof, note: body.slice(split + 2) };
}

export interface AddCheckpointOptions {
  name: string;
  key: KeyPair;
  logs: readonly WitnessedLog[];
  state: WitnessState;
  /** POSIX seconds; the cosignature's timestamp. */
  now?: () => number;
}

export async function addCheckpoint(body: string, options: AddCheckpointOptions): Promise<WitnessAnswer> {
  const request = parseRequest(body);
  if (typeof request === "string") return text(400, request);
  const parsed = parseNote(request.note);
  if ("reason" in parsed) return text(400, `the checkpoint is not a signed note: ${parsed.reason}`);
  const checkpoint = parseCheckpoint(parsed.text);
  if (!checkpoint) return text(400, "the note is not a checkpoint (origin, tree size, base64 root hash)");
  const log = options.logs.find((l) => l.origin === checkpoint.origin);
  if (!log) return text(404, `unknown log origin ${JSON.stringify(checkpoint.origin.slice(0, 200))}`);
  // tlog-witness: 403 only when none of the log's keys verifies (one bad signature beside a good one is not a refusal).
  const opened = await Promise.all(log.keys.map((key) => openNote(request.note, [key])));
  if (!opened.some((o) => o.ok)) return text(403, `the checkpoint is not signed by a key of ${checkpoint.origin}`);
  if (request.old > checkpoint.size) return text(400, `old size ${request.old} is larger than the checkpoint's size ${checkpoint.size}`);
  if (request.old === 0 && request.proof.length > 0) return text(400, "a consistency proof from size 0 is empty");
  return options.state.update(checkpoint.origin, async (current) => {
    const known = current?.size ?? 0;
    if (request.old !== known) return { result: size(known) };
    if (current && request.old === checkpoint.size) {
      if (!bytesEqual(current.rootHash, checkpoint.rootHash)) return { result: size(known) };
      if (request.proof.length > 0) return { result: text(422, "a consistency proof between equal sizes is empty") };
    } else if (current && !verifyConsistency(current.size, checkpoint.size, request.proof, current.rootHash, checkpoint.rootHash)) {
      return { result: text(422, `the consistency proof from ${current.size} to ${checkpoint.size} does not verify`) };
    }
    const timestamp = (options.now ?? (() => Math.floor(Date.now() / 1000)))();
    const line = await signCosignature(parsed.text, options.name, options.key, timestamp);
    return { next: { size: checkpoint.size, rootHash: checkpoint.rootHash }, result: { status: 200, contentType: "text/plain; charset=utf-8", body: line } satisfies WitnessAnswer };
  });
}
