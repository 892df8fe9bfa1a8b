/** Every blob store passes the same contract: content addressing, idempotent puts, verified gets (S3: a real s3rver). */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import type { BlobStore } from "./blob-store.ts";
import { FileSystemBlobStore, PostgresBlobStore } from "./blob-store.ts";
import { startS3Server } from "../../test/s3-server.ts";
import { loadConfig, type S3Settings } from "../config.ts";
import { S3BlobStore } from "./s3-blob-store.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const bytesOf = (text: string) => new TextEncoder().encode(text);

let db: Database;
let dir: string;
let s3: Awaited<ReturnType<typeof startS3Server>>;
let s3Settings: S3Settings;
/** Straight to the bucket, past the store: how an operator (or an attacker) with bucket access changes an object. */
let bucketClient: S3Client;
before(async () => {
  db = await openTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "rye-blobs-"));
  s3 = await startS3Server();
  s3Settings = loadConfig(s3.env).blobs.s3!;
  bucketClient = new S3Client({ region: s3Settings.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3Settings.credentials! });
});
after(async () => {
  bucketClient.destroy();
  await db.close();
  await rm(dir, { recursive: true, force: true });
  await s3.close();
});

interface Variant {
  name: string;
  store: () => BlobStore;
  corrupt: (sha256: string, bytes: Uint8Array) => Promise<void>;
}

const variants: Variant[] = [
  {
    name: "postgres",
    store: () => new PostgresBlobStore(db),
    corrupt: async (sha256, bytes) => {
      await db.prisma.blob.update({ where: { sha256 }, data: { content: new Uint8Array(bytes) } });
    },
  },
  {
    name: "filesystem",
    store: () => new FileSystemBlobStore(dir),
    corrupt: (sha256, bytes) => writeFile(join(dir, sha256.slice(0, 2), sha256), bytes),
  },
  {
    name: "s3",
    store: () => new S3BlobStore(s3Settings),
    corrupt: async (sha256, bytes) => {
      await bucketClient.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `blobs/${sha256.slice(0, 2)}/${sha256}`, Body: bytes }));
    },
  },
];

for (const v of variants) {
  describe(`${v.name} blob store`, () => {
    test("put returns the SHA-256 and get returns the same bytes", async () => {
      const store = v.store();
      const binary = new Uint8Array([0, 255, 1, 254, 0x0d, 0x0a, 0]);
      for (const bytes of [bytesOf("hello\r\nworld"), binary, new Uint8Array(0)]) {
        const name = await store.put(bytes);
        assert.equal(name, sha(bytes));
        assert.equal(await store.has(name), true);
        assert.deepEqual(new Uint8Array((await store.get(name))!), bytes);
      }
    });

    test("puts are idempotent, also when concurrent", async () => {
      const store = v.store();
      const bytes = bytesOf(`same ${v.name}`);
      const names = await Promise.all(Array.from({ length: 12 }, () => store.put(bytes)));
      assert.deepEqual(new Set(names), new Set([sha(bytes)]));
      if (v.name === "postgres") assert.equal(await db.prisma.blob.count({ where: { sha256: sha(bytes) } }), 1);
      else if (v.name === "s3") {
        const listed = await bucketClient.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `blobs/${sha(bytes).slice(0, 2)}/` }));
        assert.deepEqual(listed.Contents?.map((o) => o.Key), [`blobs/${sha(bytes).slice(0, 2)}/${sha(bytes)}`], "one object, at its content address");
      } else assert.deepEqual(await readdir(join(dir, sha(bytes).slice(0, 2))), [sha(bytes)], "no temp files are left behind");
    });

    test("unknown and malformed names are absent, never paths", async () => {
      const store = v.store();
      assert.equal(await store.get("0".repeat(64)), null);
      assert.equal(await store.has("0".repeat(64)), false);
      for (const name of ["../../etc/passwd", "ab", "A".repeat(64), `${"a".repeat(63)}/`]) {
        assert.equal(await store.get(name), null, name);
        assert.equal(await store.has(name), false, name);
      }
    });

    test("a blob whose stored bytes changed is reported, not served", async () => {
      const store = v.store();
      const bytes = bytesOf(`original ${v.name}`);
      const name = await store.put(bytes);
      await v.corrupt(name, bytesOf(`tampered ${v.name}`));
      await assert.rejects(store.get(name), (err) => err instanceof RyeError && err.code === "INTERNAL" && /corrupted/.test(err.message));
    });
  });
}
