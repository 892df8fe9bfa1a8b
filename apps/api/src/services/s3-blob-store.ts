/**
 * Blobs in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Supabase Storage): key `<prefix><aa>/<sha256>`.
 * Every failure of the store becomes a RyeError — UNAVAILABLE (503) with what went wrong and what to check — so a
 * request that needs a blob answers with a clear error instead of a stack trace, and nothing half-written is
 * left: an object appears whole or not at all, and callers write their database rows only after the blobs.
 */
import { createHash } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { RyeError, sha256Hex } from "@rye/core";
import type { S3Settings } from "../config.ts";
import { type BlobStore, isBlobName, verified } from "./blob-store.ts";

type Operation = "put" | "get" | "has";
type S3Sdk = typeof import("@aws-sdk/client-s3");

let sdk: Promise<S3Sdk> | undefined;
/** The AWS SDK (~6 MB of heap, more resident) is loaded by the first operation, so a registry on the postgres store never loads it. */
function loadSdk(): Promise<S3Sdk> {
  return (sdk ??= import("@aws-sdk/client-s3"));
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE", "ECONNABORTED"]);

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === "NotFound" || name === "NoSuchKey" || (statusOf(err) === 404 && name !== "NoSuchBucket");
}

/** Why the store failed, for the error's details and hint; never the credentials. */
function diagnose(err: unknown, settings: S3Settings, S3ServiceException: S3Sdk["S3ServiceException"] | undefined): { reason: string; message: string; hint: string } {
  const e = err as { name?: string; code?: string; message?: string };
  const where = `bucket ${JSON.stringify(settings.bucket)}${settings.endpoint ? ` at ${settings.endpoint}` : ""}`;
  const attempts = `${settings.maxAttempts} attempt${settings.maxAttempts === 1 ? "" : "s"}`;
  if (e.name === "TimeoutError" || e.code === "ETIMEDOUT" || e.name === "AbortError") {
    return {
      reason: "timeout",
      message: `The blob store (${where}) did not answer within ${settings.timeoutMs} ms (${attempts})`,
      hint: "Check the object store's health and network path; raise RYE_S3_TIMEOUT_MS for very large bundles or slow links.",
    };
  }
  if (e.code && NETWORK_CODES.has(e.code)) {
    return {
      reason: "unreachable",
      message: `The blob store (${where}) is unreachable: ${e.code} (${attempts})`,
      hint: "Check that the object store runs and that RYE_S3_ENDPOINT / RYE_S3_REGION name it.",
    };
  }
  if (e.name === "NoSuchBucket") {
    return { reason: "no_such_bucket", message: `The blob store has no ${where}`, hint: "Create the bucket, or fix RYE_S3_BUCKET." };
  }
  const status = statusOf(err);
  if (status === 401 || status === 403 || e.name === "AccessDenied" || e.name === "InvalidAccessKeyId" || e.name === "SignatureDoesNotMatch") {
    return {
      reason: "access_denied",
      message: `The blob store refused access to ${where} (${e.name ?? status})`,
      hint: "Check RYE_S3_ACCESS_KEY_ID / RYE_S3_SECRET_ACCESS_KEY (or the instance role) and the bucket policy: the registry reads, writes and checks objects.",
    };
  }
  if ((S3ServiceException && err instanceof S3ServiceException) || status !== undefined) {
    return {
      reason: "server_error",
      message: `The blob store (${where}) failed: ${e.name ?? "error"}${status ? ` (HTTP ${status})` : ""} (${attempts})`,
      hint: "The object store reported an error; retry shortly and check its status.",
    };
  }
  return { reason: "client_error", message: `The blob store (${where}) could not be used: ${e.message ?? String(err)}`, hint: "Check the RYE_S3_* settings (docs/deployment.md, Blob storage)." };
}

export class S3BlobStore implements BlobStore {
  private connection: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;

  constructor(private readonly settings: S3Settings) {}

  /** The SDK and this store's client, made by the first operation. */
  private connect(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    return (this.connection ??= loadSdk().then((loaded) => ({ sdk: loaded, client: this.newClient(loaded) })));
  }

  private newClient({ S3Client }: S3Sdk): S3Client {
    const settings = this.settings;
    return new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      forcePathStyle: settings.forcePathStyle,
      maxAttempts: settings.maxAttempts,
      retryMode: "standard",
      requestHandler: { connectionTimeout: settings.connectTimeoutMs, requestTimeout: settings.timeoutMs, throwOnRequestTimeout: true, socketTimeout: settings.timeoutMs },
      // Content-MD5 on puts and our own SHA-256 on reads; the newer default checksums are not spoken by every S3-compatible store.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  keyOf(sha256: string): string {
    return `${this.settings.prefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  private async failure(operation: Operation, sha256: string, err: unknown): Promise<RyeError> {
    if (err instanceof RyeError) return err;
    const { reason, message, hint } = diagnose(err, this.settings, (await loadSdk().catch(() => undefined))?.S3ServiceException);
    return new RyeError("UNAVAILABLE", message, { hint, details: { store: "s3", operation, reason, sha256 }, cause: err });
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    // Content addressing makes a present object the right object (get verifies it), so a HEAD saves the upload.
    if (await this.exists(sha256, "put")) return sha256;
    return this.write(sha256, bytes);
  }

  /** Writes the object even when one exists (the migration repairs a corrupted copy with it). */
  async replace(bytes: Uint8Array): Promise<string> {
    return this.write(sha256Hex(bytes), bytes);
  }

  private async write(sha256: string, bytes: Uint8Array): Promise<string> {
    try {
      const { sdk, client } = await this.connect();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.keyOf(sha256),
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: "application/octet-stream",
          // The store refuses bytes damaged on the way instead of storing them.
          ContentMD5: createHash("md5").update(bytes).digest("base64"),
        }),
      );
      return sha256;
    } catch (err) {
      throw await this.failure("put", sha256, err);
    }
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!isBlobName(sha256)) return null;
    let bytes: Uint8Array;
    try {
      const { sdk, client } = await this.connect();
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(sha256) }));
      if (!res.Body) return null;
      bytes = await res.Body.transformToByteArray();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw await this.failure("get", sha256, err);
    }
    return verified(sha256, bytes);
  }

  async has(sha256: string): Promise<boolean> {
    if (!isBlobName(sha256)) return false;
    return this.exists(sha256, "has");
  }

  private async exists(sha256: string, operation: Operation): Promise<boolean> {
    try {
      const { sdk, client } = await this.connect();
      await client.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(sha256) }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw await this.failure(operation, sha256, err);
    }
  }

  /** Closes the client's pooled connections (none when no operation ran). */
  close(): void {
    void this.connection?.then(({ client }) => client.destroy());
  }
}
