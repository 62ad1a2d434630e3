// Reads exactly the declared number of body bytes of one request, with its own deadline, so a
// client that announces N bytes and sends fewer cannot hold a connection or a check slot. The
// buffer is sized from the declared length (capped at 64 KiB by the ladder); nothing beyond it is kept.
import type { IncomingMessage } from "node:http";
import { readUntilSettled } from "../core/read-until-settled.js";

export type BodyRead =
  | { readonly kind: "ok"; readonly bytes: Uint8Array }
  | { readonly kind: "timeout" }
  /** The client went away, or sent a different number of bytes than it declared. */
  | { readonly kind: "aborted" };

/** Reads `declaredLength` body bytes of `req` within `timeoutMs`: the bytes, a timeout, or aborted (gone, or a different length). */
export function readBody(req: IncomingMessage, declaredLength: number, timeoutMs: number): Promise<BodyRead> {
  const buffer = Buffer.allocUnsafe(declaredLength);
  let received = 0;
  return readUntilSettled<BodyRead>(
    req,
    timeoutMs,
    { kind: "timeout" },
    (settle) => ({
      data: (chunk) => {
        const bytes = chunk as Buffer;
        if (received + bytes.byteLength > declaredLength) return settle({ kind: "aborted" });
        bytes.copy(buffer, received);
        received += bytes.byteLength;
      },
      end: () => settle(received === declaredLength ? { kind: "ok", bytes: buffer.subarray(0, received) } : { kind: "aborted" }),
      error: () => settle({ kind: "aborted" }),
      close: () => {
        if (!req.complete) settle({ kind: "aborted" });
      },
    }),
    // Stop buffering anything else the client sends; the caller answers and closes.
    (outcome) => outcome.kind !== "ok",
  );
}
