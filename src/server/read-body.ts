// Reads exactly the declared number of body bytes of one request, with its own deadline, so a
// client that announces N bytes and sends fewer cannot hold a connection or a check slot. The
// buffer is sized from the declared length (capped at 64 KiB by the ladder); nothing beyond it is kept.
import type { IncomingMessage } from "node:http";

export type BodyRead =
  | { readonly kind: "ok"; readonly bytes: Uint8Array }
  | { readonly kind: "timeout" }
  /** The client went away, or sent a different number of bytes than it declared. */
  | { readonly kind: "aborted" };

export function readBody(req: IncomingMessage, declaredLength: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const buffer = Buffer.allocUnsafe(declaredLength);
    let received = 0;
    let settled = false;
    const finish = (outcome: BodyRead): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("close", onClose);
      // Stop buffering anything else the client sends; the caller answers and closes.
      if (outcome.kind !== "ok") req.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      if (received + chunk.byteLength > declaredLength) return finish({ kind: "aborted" });
      chunk.copy(buffer, received);
      received += chunk.byteLength;
    };
    const onEnd = (): void => {
      finish(received === declaredLength ? { kind: "ok", bytes: buffer.subarray(0, received) } : { kind: "aborted" });
    };
    const onAbort = (): void => finish({ kind: "aborted" });
    const onClose = (): void => {
      if (!req.complete) finish({ kind: "aborted" });
    };
    const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutMs);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("close", onClose);
  });
}
