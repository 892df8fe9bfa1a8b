/** The proof a pull answer carries that its version is in the registry's signed log (docs/transparency.md). */
import { z } from "zod";

const base64Hash = z.string().max(64).meta({ description: "A SHA-256 hash, standard base64." });

/** The `transparency` section of a pull (and bundle and skill) answer asked for with `tlog_from` (docs/transparency.md). */
export const pullTransparencySchema = z
  .object({
    index: z.number().int().min(0).meta({ description: "The log index of the version's publish entry (its attestation's log_index)." }),
    leaf: z.string().max(90_000).meta({ description: "The entry's leaf bytes (canonical JSON), standard base64." }),
    proof: z.array(base64Hash).max(64).meta({ description: "RFC 6962 audit path of the leaf in the checkpoint's tree." }),
    checkpoint: z.string().max(16_384).meta({ description: "The latest checkpoint: a C2SP signed note (origin, tree size, root hash) signed by the registry and cosigned by its witnesses." }),
    consistency: z
      .object({ from: z.number().int().min(1), proof: z.array(base64Hash).max(128) })
      .optional()
      .meta({ description: "RFC 6962 consistency proof from the client's tree size `tlog_from` to the checkpoint's (when 0 < tlog_from ≤ its size)." }),
  })
  .meta({ id: "PullTransparency" });
export type PullTransparencyAnswer = z.infer<typeof pullTransparencySchema>;

