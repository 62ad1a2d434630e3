// Shared machinery of the HTTP stand-ins (Ollama, OpenAI-compatible): a real node:http server on
// 127.0.0.1 with an OS-chosen port, request recording, bounded request bodies, and the faults a
// backend can show (dropped connection, error status, garbage, hang). Every socket is tracked so
// close() can destroy hanging connections and a test never leaks a handle.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the stand-in saw it; `body` is the parsed JSON body, or undefined. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  readonly rawBody: string;
}

/** Faults shared by every stand-in route. */
export type TransportFault =
  /** Destroy the socket without answering (the client sees a reset / "other side closed"). */
  | { readonly fault: "drop"; readonly latencyMs?: number }
  /** Answer with this status and an optional text body (default `{"error":"stand-in error"}`). */
  | { readonly fault: "status"; readonly status: number; readonly body?: string; readonly latencyMs?: number }
  /** Status 200 with a body that is not JSON. */
  | { readonly fault: "garbage"; readonly latencyMs?: number }
  /** Never answer; the connection stays open until the client aborts or close() runs. */
  | { readonly fault: "hang" }
  /** Status (default 200) with any JSON-serialisable value as the body, verbatim. */
  | { readonly rawBody: unknown; readonly status?: number; readonly latencyMs?: number };

export function isTransportFault(reply: unknown): reply is TransportFault {
  if (typeof reply !== "object" || reply === null) return false;
  if ("rawBody" in reply) return true;
  const fault = (reply as { fault?: unknown }).fault;
  return fault === "drop" || fault === "status" || fault === "garbage" || fault === "hang";
}

/** Requests larger than this are answered 413 and not recorded (the stand-in is bounded too). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export type RouteHandler = (request: RecordedRequest, res: ServerResponse) => Promise<void>;

export interface LoopbackServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
  /** Resolves after `ms`, or early (false) when the server is closing. */
  sleep(ms: number): Promise<boolean>;
  /** Sends `fault` on `res` (after its latency); resolves when done or the server closes. */
  sendFault(req: RecordedRequest, res: ServerResponse, fault: TransportFault): Promise<void>;
  /** Requests whose connection the client closed before their answer was sent. */
  abandoned(): number;
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function startLoopbackServer(handle: RouteHandler): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: (v: boolean) => void }>();
  const requests: RecordedRequest[] = [];
  let closing = false;

  const sleep = (ms: number): Promise<boolean> => {
    if (closing) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve(true);
        }, ms),
        resolve,
      };
      timers.add(entry);
    });
  };

  const sendFault = async (_req: RecordedRequest, res: ServerResponse, fault: TransportFault): Promise<void> => {
    if ("fault" in fault && fault.fault === "hang") return; // close() destroys the socket
    const latency = "latencyMs" in fault ? (fault.latencyMs ?? 0) : 0;
    if (!(await sleep(latency))) return;
    if ("rawBody" in fault) return sendJson(res, fault.status ?? 200, fault.rawBody);
    switch (fault.fault) {
      case "drop":
        res.socket?.destroy();
        return;
      case "status": {
        const body = fault.body ?? JSON.stringify({ error: "stand-in error" });
        res.writeHead(fault.status, { "content-type": "text/plain", "content-length": Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      case "garbage": {
        const body = "<html>not json {";
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
        return;
      }
    }
  };

  let abandoned = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Closed before the answer was written, and not by close(): the client went away.
    res.once("close", () => {
      if (!res.writableFinished && !closing) abandoned++;
    });
    void (async () => {
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_REQUEST_BYTES) {
          tooLarge = true;
          break;
        }
        chunks.push(chunk);
      }
      if (tooLarge) {
        res.writeHead(413, { connection: "close" });
        res.end();
        return;
      }
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      if (rawBody.length > 0) {
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = undefined;
        }
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        headers: req.headers,
        body,
        rawBody,
      };
      requests.push(recorded);
      await handle(recorded, res);
    })().catch(() => {
      // A handler bug must not crash the test process; the client sees a 500.
      if (!res.headersSent) {
        res.writeHead(500);
        res.end();
      } else {
        res.socket?.destroy();
      }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    sleep,
    sendFault,
    abandoned: () => abandoned,
    close: async () => {
      if (closing) return;
      closing = true;
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.resolve(false);
      }
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
