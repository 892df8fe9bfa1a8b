/** skills.test.ts again, with the registry's blobs in a real S3 protocol server (test/s3-server.ts). */
process.env.RYE_TEST_BLOB_STORE = "s3";
await import("./skills.test.ts");
