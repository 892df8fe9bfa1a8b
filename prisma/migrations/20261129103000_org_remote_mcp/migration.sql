-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "allow_remote_mcp" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE INDEX "refresh_tokens_client_id_idx" ON "refresh_tokens"("client_id");
