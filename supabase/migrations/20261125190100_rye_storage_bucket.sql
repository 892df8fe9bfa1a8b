-- The bucket the registry keeps blobs in when it runs on Supabase Storage through its S3 endpoint
-- (RYE_BLOB_STORE=s3, RYE_S3_ENDPOINT=https://<project>.supabase.co/storage/v1/s3, RYE_S3_BUCKET=rye-blobs,
-- RYE_S3_FORCE_PATH_STYLE=true, RYE_S3_REGION=<the project's region>, and the project's S3 access keys).
-- Private: the registry serves blobs itself (it checks visibility and hashes); storage.objects gets no policy for
-- the bucket, so anon and authenticated can neither list, read nor write its objects through the Storage API.
-- The size limit is the registry's default bundle limit (RYE_MAX_BUNDLE_BYTES, 50 MiB).
-- (supabase/config.toml declares the same bucket for `supabase start`; this migration creates it on a hosted project.)
INSERT INTO storage.buckets (id, name, public, file_size_limit)
VALUES ('rye-blobs', 'rye-blobs', false, 52428800)
ON CONFLICT (id) DO UPDATE SET public = false, file_size_limit = excluded.file_size_limit;
