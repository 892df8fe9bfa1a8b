/** One HTTP POST of a webhook delivery: no redirects followed, a total deadline, and only a short excerpt of the answer kept. */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { WEBHOOK_LIMITS } from "./events.ts";
import { guardedLookup } from "./network.ts";

export interface DeliveryAttempt {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string;
}

export interface PostOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent: string;
}

export function postWebhook(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<DeliveryAttempt> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null, excerpt = ""): DeliveryAttempt => ({
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
    responseExcerpt: excerpt,
  });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(attempt);
    };
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": options.userAgent },
        ...(options.allowPrivateNetworks ? {} : { lookup: guardedLookup }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept < WEBHOOK_LIMITS.responseExcerpt) {
            chunks.push(chunk.subarray(0, WEBHOOK_LIMITS.responseExcerpt - kept));
            kept += Math.min(chunk.length, WEBHOOK_LIMITS.responseExcerpt - kept);
          } else res.destroy(); // the rest of the answer does not matter
        });
        const end = () => {
          const status = res.statusCode ?? null;
          const redirect = status !== null && status >= 300 && status < 400;
          finish(done(status, redirect ? `redirect to ${res.headers.location ?? "?"} not followed` : null, Buffer.concat(chunks).toString("utf8")));
        };
        res.on("end", end);
        res.on("close", end);
        res.on("error", end);
      },
    );
    const deadline = setTimeout(() => {
      req.destroy();
      finish(done(null, `no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => finish(done(null, err.code === "EBLOCKEDADDRESS" ? err.message : `${err.code ?? "error"}: ${err.message}`)));
    req.end(body);
  });
}
