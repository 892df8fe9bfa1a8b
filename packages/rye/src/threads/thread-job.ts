/** A durable thread job's data (queue.ts), apart from pg-boss so the SDK's types do not carry it. */
import { z } from "zod";
import { isValidThreadId } from "./paths.ts";

export const threadJobSchema = z.object({
  project_path: z.string().min(1),
  thread_id: z.string().refine(isValidThreadId, "not a valid thread id"),
  /** thread_directive's parameters for the thread. */
  params: z.record(z.string(), z.unknown()),
  /** The parent's context (what `RYE_THREAD_PARENT` carries locally), null for a root thread. */
  parent: z.string().nullable(),
  enqueued_at: z.iso.datetime({ offset: true }),
});
export type ThreadJob = z.infer<typeof threadJobSchema>;
