-- AlterTable
ALTER TABLE "authorization_codes" ADD COLUMN     "resource" TEXT;

-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "resource" TEXT;

-- CreateTable
CREATE TABLE "oauth_client_registrations" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "redirect_uris" TEXT[],
    "created_ip" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_client_registrations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "oauth_client_registrations_client_id_key" ON "oauth_client_registrations"("client_id");

-- CreateIndex
CREATE INDEX "oauth_client_registrations_created_at_idx" ON "oauth_client_registrations"("created_at");
