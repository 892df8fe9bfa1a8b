-- CreateTable
CREATE TABLE "rate_counters" (
    "key" TEXT NOT NULL,
    "reset_at" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_counters_pkey" PRIMARY KEY ("key")
);

-- No WAL per request: the counters are rewritten on every API request and only matter for one window, so losing
-- them in a crash (an UNLOGGED table is emptied on recovery) just lifts the limits until the next window.
ALTER TABLE "rate_counters" SET UNLOGGED;

-- The sweep deletes ended windows by reset_at.
CREATE INDEX "rate_counters_reset_at_idx" ON "rate_counters" ("reset_at");
