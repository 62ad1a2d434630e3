// Binding (to 127.0.0.1 only) and shutdown of a service made by createServer.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LittleCanaryError } from "../core/errors.js";
import { BIND_HOST, LISTEN_BACKLOG } from "./limits.js";
import { serviceControl } from "./create-server.js";

/** The service could not bind its loopback port. `reason` is the system code (EADDRINUSE, …). */
export class ServerBindError extends LittleCanaryError {
  override readonly code = "bind_failed" as const;
  override readonly name = "ServerBindError";
  readonly reason: string;
  readonly port: number;
  constructor(port: number, reason: string) {
    super("bind_failed", `cannot listen on ${BIND_HOST}:${port} (${reason})`);
    this.port = port;
    this.reason = reason;
  }
}

/** Listens on 127.0.0.1:`port` and resolves with the port the OS gave (so port 0 works). */
export function listenLoopback(server: Server, port: number): Promise<number> {
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) return Promise.reject(new RangeError("port must be an integer from 0 to 65535"));
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off("listening", onListening);
      const reason = typeof error.code === "string" && /^[A-Z0-9_]{1,40}$/.test(error.code) ? error.code : "error";
      reject(new ServerBindError(port, reason));
    };
    const onListening = (): void => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    // A deep accept queue: while a flood of connections is being accepted and evicted, a full
    // queue would drop a real caller's SYN and cost it a one-second retransmission.
    server.listen({ host: BIND_HOST, port, exclusive: true, backlog: LISTEN_BACKLOG });
  });
}

/**
 * Stops accepting, lets every accepted request finish (queued checks included), then closes the
 * remaining connections; `force` settling (a second Ctrl-C) cuts the wait short. Resolves with
 * the number of requests still unanswered when their connections were closed (0 after a full drain).
 */
export async function closeGracefully(server: Server, force?: Promise<unknown>): Promise<number> {
  const control = serviceControl(server);
  if (control) control.draining = true;
  const closed = new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  server.closeIdleConnections();
  if (control && control.activeRequests > 0) {
    const idle = new Promise<void>((resolve) => control.idleWaiters.push(resolve));
    // A force that rejects cuts the wait short too.
    await (force ? Promise.race([idle, force.catch(() => undefined)]) : idle);
  }
  // Counted before the close: a request cut off here never gets its answer.
  const unanswered = control?.activeRequests ?? 0;
  server.closeAllConnections();
  await closed;
  return unanswered;
}
