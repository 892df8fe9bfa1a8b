-- AlterTable
ALTER TABLE "log_checkpoints" ADD COLUMN     "note" TEXT,
ADD COLUMN     "root_hash" CHAR(64);

-- CreateTable
CREATE TABLE "tlog_tiles" (
    "level" SMALLINT NOT NULL,
    "index" BIGINT NOT NULL,
    "hashes" BYTEA NOT NULL,

    CONSTRAINT "tlog_tiles_pkey" PRIMARY KEY ("level","index")
);

-- Hand-written (the diff ignores CHECK constraints): a tile holds 1 to 256 whole 32-byte hashes.
ALTER TABLE "tlog_tiles" ADD CONSTRAINT "tlog_tiles_hashes_check" CHECK (octet_length("hashes") BETWEEN 32 AND 8192 AND octet_length("hashes") % 32 = 0);
