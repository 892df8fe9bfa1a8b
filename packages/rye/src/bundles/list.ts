/** `listBundles`: every `<space .ai>/bundles/<id>/manifest.yaml` (any depth), read without verifying. */
import { parseManifest, validateItemId } from "@rye/core";
import type { Space, SpaceName } from "../spaces/spaces.ts";
import { ConfinedRoot } from "./confined.ts";
import { readManifestFile } from "./manifest-file.ts";
import { walkFiles } from "./walk.ts";

export interface ListedBundle {
  space: SpaceName;
  bundleId: string;
  version: string;
  description: string;
  /** `package` for package bundles. */
  type?: string;
  fileCount: number;
  manifestPath: string;
  /** Why the manifest could not be read; the other fields are then empty. */
  error?: string;
}

const MANIFEST_SUFFIX = "/manifest.yaml";

/** Bundle ids of one space: folders under `bundles/` holding a `manifest.yaml` (ids that are not valid are left out). */
async function bundleIdsIn(spaceRoot: ConfinedRoot): Promise<string[]> {
  const ids: string[] = [];
  await walkFiles(spaceRoot, "bundles", {
    file(path) {
      if (!path.endsWith(MANIFEST_SUFFIX)) return;
      const id = path.slice("bundles/".length, -MANIFEST_SUFFIX.length);
      if (validateItemId(id) === null) ids.push(id);
    },
    skip() {},
  });
  return ids.sort();
}

async function describeBundle(space: Space, spaceRoot: ConfinedRoot, bundleId: string): Promise<ListedBundle> {
  const entry: ListedBundle = { space: space.name, bundleId, version: "", description: "", fileCount: 0, manifestPath: spaceRoot.pathOf(`bundles/${bundleId}/manifest.yaml`) };
  try {
    const { text } = await readManifestFile(spaceRoot, bundleId, `bundles/${bundleId}/manifest.yaml`);
    const manifest = parseManifest(text);
    entry.version = manifest.bundle.version;
    entry.description = manifest.bundle.description;
    if (manifest.bundle.type) entry.type = manifest.bundle.type;
    entry.fileCount = Object.keys(manifest.files).length;
  } catch (err) {
    entry.error = err instanceof Error ? err.message : String(err);
  }
  return entry;
}

/** Bundles of the given spaces (`space.root` is the `.ai` directory), in space order then by id. */
export async function listBundles(spaces: Space[]): Promise<ListedBundle[]> {
  const bundles: ListedBundle[] = [];
  for (const space of spaces) {
    const spaceRoot = await ConfinedRoot.open(space.root);
    for (const bundleId of await bundleIdsIn(spaceRoot)) bundles.push(await describeBundle(space, spaceRoot, bundleId));
  }
  return bundles;
}
