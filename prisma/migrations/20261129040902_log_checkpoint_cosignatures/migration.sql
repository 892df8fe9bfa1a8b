-- AlterTable
ALTER TABLE "log_checkpoints" ADD COLUMN     "cosignatures" TEXT,
ADD COLUMN     "witnessed_at" TIMESTAMPTZ(3);
