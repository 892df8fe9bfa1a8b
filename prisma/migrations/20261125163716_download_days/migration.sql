-- CreateTable
CREATE TABLE "download_days" (
    "item_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "download_days_pkey" PRIMARY KEY ("item_id","version","day")
);

-- CreateIndex
CREATE INDEX "download_days_item_id_day_idx" ON "download_days"("item_id", "day");

-- AddForeignKey
ALTER TABLE "download_days" ADD CONSTRAINT "download_days_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;
