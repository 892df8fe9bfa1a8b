/**
 * Rollback protection for a registry's publish log. The registry signs checkpoints of its append-only
 * log (`GET /v1/log/checkpoint`: tree size and head hash). The client keeps the largest checkpoint it
 * verified per registry in the key pin and refuses a later one that is smaller (the log was rolled
 * back: older state served again) or of the same size with another head (the log was forked).
 *
 * A registry that does not serve checkpoints, or cannot be reached for one, is not checked (the item
 * itself is still fully verified): this detects rollback and forks, not a registry host that withholds
 * its checkpoint.
 */
import type { SignedDocument } from "@rye/core";
import { logCheckpointSchema, RyeError, verifyDocument } from "@rye/core";
import { checkpointAnswerSchema } from "./answers.ts";
import { answerError, malformed, readJson, registryFetch } from "./http.ts";
import type { RegistryKeyResult, SeenCheckpoint } from "./key-pinning.ts";
import { assertSignedByPinned, getRegistryPin, recordCheckpoint } from "./key-pinning.ts";


/** The registry's current signed checkpoint, or undefined when it serves none or cannot be reached. */
export async function fetchCheckpoint(url: string, env: NodeJS.ProcessEnv): Promise<SignedDocument<unknown> | undefined> {
  let answer;
  try {
    answer = await registryFetch(url, "/v1/log/checkpoint", { env });
  } catch (err) {
    if (err instanceof RyeError && (err.code === "UNAVAILABLE" || err.code === "TIMEOUT")) return undefined;
    throw err;
  }
  if (answer.status === 404 || answer.status === 405 || answer.status === 501) return undefined;
  if (answer.status >= 500) return undefined;
  if (!answer.ok) throw answerError(answer);
  return readJson(answer, checkpointAnswerSchema) as SignedDocument<unknown>;
}

/**
 * Verifies `doc` with the pinned registry key and compares it with the largest checkpoint seen; a
 * newer one is recorded. Throws INTEGRITY_MISMATCH for a rollback or fork, BAD_SIGNATURE for a forgery.
 */
export async function observeCheckpoint(pinned: RegistryKeyResult, doc: SignedDocument<unknown>, env: NodeJS.ProcessEnv): Promise<SeenCheckpoint> {
  const url = pinned.url;
  const key = assertSignedByPinned(pinned, doc.key_fingerprint);
  if (!(await verifyDocument(doc, key))) {
    throw new RyeError("BAD_SIGNATURE", `The log checkpoint of ${url} does not verify with its pinned key ${key.fingerprint}; nothing was written`, {
      hint: "The registry or the network altered it. Do not trust this registry's answers; retry on a trusted network or report it to the registry's operators.",
    });
  }
  const parsed = logCheckpointSchema.safeParse(doc.payload);
  if (!parsed.success) throw malformed(url, `${url}/v1/log/checkpoint`, "the checkpoint payload is malformed");
  const current: SeenCheckpoint = { tree_size: parsed.data.tree_size, head_hash: parsed.data.head_hash, issued_at: parsed.data.issued_at };
  const seen = (await getRegistryPin(url, env))?.checkpoint;
  if (seen) {
    const refuse = (what: string) =>
      new RyeError("INTEGRITY_MISMATCH", `The publish log of ${url} ${what}; nothing was written`, {
        hint: "A registry's log only grows. Someone is serving you an old or forked state of it (a compromised mirror or host). Do not trust its answers; report it to the registry's operators.",
        details: { registry: url, seen, served: current },
      });
    if (current.tree_size < seen.tree_size) throw refuse(`went back from ${seen.tree_size} entries to ${current.tree_size} (a rollback)`);
    if (current.tree_size === seen.tree_size && current.head_hash !== seen.head_hash) throw refuse(`has another head at ${seen.tree_size} entries than before (a fork)`);
    if (current.tree_size === seen.tree_size) return seen;
  }
  await recordCheckpoint(url, current, env);
  return current;
}
