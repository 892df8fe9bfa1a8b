import { bodyLimit } from "hono/body-limit";
import { RyeError } from "@rye/core";

/** Refuses request bodies over `maxBytes` with 413 PAYLOAD_TOO_LARGE before they are read. */
export function limitBody(maxBytes: number, what = "Request bodies") {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new RyeError("PAYLOAD_TOO_LARGE", `${what} may be at most ${maxBytes} bytes`);
    },
  });
}
