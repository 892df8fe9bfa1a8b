/** Reading `.ai/bundles/<id>/manifest.yaml` through the confined root. */
import { RyeError, utf8Decode } from "@rye/core";
import type { ConfinedRoot } from "./confined.ts";
import { manifestRelPath } from "./ids.ts";
import { MAX_MANIFEST_BYTES } from "./limits.ts";

export interface ManifestFile {
  manifestPath: string;
  text: string;
}

/** `relPath` defaults to `.ai/bundles/<id>/manifest.yaml` (the root holds `.ai`). */
export async function readManifestFile(root: ConfinedRoot, bundleId: string, relPath = manifestRelPath(bundleId)): Promise<ManifestFile> {
  const manifestPath = root.pathOf(relPath);
  const read = await root.read(relPath, MAX_MANIFEST_BYTES);
  if (read.kind === "missing") {
    throw new RyeError("ITEM_NOT_FOUND", `No manifest for bundle ${bundleId} at ${manifestPath}`, {
      hint: `Create it with \`rye bundle create ${bundleId}\` (add --user for the user space); \`rye bundle list\` shows the existing bundles.`,
    });
  }
  if (read.kind === "refused") {
    const code = read.refusal === "outside-root" || read.refusal === "bad-path" ? "PATH_TRAVERSAL" : read.refusal === "too-large" ? "PAYLOAD_TOO_LARGE" : "BUNDLE_INVALID";
    throw new RyeError(code, `Refusing to read the manifest ${manifestPath}: ${read.reason}`);
  }
  try {
    return { manifestPath, text: utf8Decode(read.bytes) };
  } catch {
    throw new RyeError("BUNDLE_INVALID", `The manifest ${manifestPath} is not valid UTF-8`);
  }
}
