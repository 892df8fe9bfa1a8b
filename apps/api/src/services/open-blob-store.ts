/** The registry's one blob store, chosen by RYE_BLOB_STORE (config.blobs): built here and nowhere else. */
import type { Database } from "@rye/db";
import type { BlobConfig } from "../config.ts";
import { type BlobStore, PostgresBlobStore } from "./blob-store.ts";
import { S3BlobStore } from "./s3-blob-store.ts";

export function openBlobStore(config: BlobConfig, db: Database): BlobStore {
  if (config.store === "s3") {
    // loadConfig refuses RYE_BLOB_STORE=s3 without a bucket, so s3 is set here.
    return new S3BlobStore(config.s3!);
  }
  return new PostgresBlobStore(db);
}
