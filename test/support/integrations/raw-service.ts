// A loopback HTTP server with a scripted answer, for the answers a real service never gives
// (a JSON array, non-JSON, an oversize body, a redirect, a hang). It records what it was asked,
// so tests can prove a request was or was not made.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RawService {
  readonly origin: string;
  readonly checkEndpoint: string;
  readonly requests: Array<{ method: string; url: string; body: string }>;
  close(): Promise<void>;
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

export async function startRawService(handler: RawHandler): Promise<RawService> {
  const requests: RawService["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    checkEndpoint: `${origin}/check`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers /check with `body` (and status) verbatim; /health with a ready block-mode report. */
export function answering(body: string | Buffer, status = 200): RawHandler {
  return (req, res) => {
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ mode: "block", canary_timeout: 1, ready: true }));
      return;
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  };
}
