// Helpers for service tests: a real service on 127.0.0.1 port 0 around a real SecurityPipeline
// that talks to the loopback Ollama stand-in, plus a raw-socket client for requests that fetch
// will not send (bad Content-Length, chunked bodies, stalls).
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { SecurityPipelineOptions } from "../../src/pipeline/options.js";
import { createServer, serviceControl, type ServeOptions } from "../../src/server/create-server.js";
import { closeGracefully, listenLoopback } from "../../src/server/lifecycle.js";
import type { LogLevel } from "../../src/server/access-log.js";

export interface RunningService {
  readonly server: Server;
  readonly url: string;
  readonly port: number;
  readonly logs: Array<{ level: LogLevel; message: string }>;
  close(): Promise<void>;
}

export async function startService(pipeline: SecurityPipeline | null, options: ServeOptions = {}): Promise<RunningService> {
  const logs: Array<{ level: LogLevel; message: string }> = [];
  const server = createServer(pipeline, { log: (level, message) => logs.push({ level, message }), ...options });
  const port = await listenLoopback(server, 0);
  await serviceControl(server)?.health?.refresh();
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    port,
    logs,
    close: async () => {
      if (server.listening) await closeGracefully(server, Promise.resolve());
    },
  };
}

export function pipelineFor(ollamaUrl: string, extra: SecurityPipelineOptions = {}): SecurityPipeline {
  return new SecurityPipeline({ mode: "advisory", ollamaUrl, canaryTimeout: 5, ...extra });
}

/** POSTs `body` to /check; `signal` lets a test go away before the answer. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/check`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

export interface RawAnswer {
  readonly status: number | null;
  readonly headers: Map<string, string>;
  readonly body: string;
}

function parseRaw(text: string): RawAnswer {
  const split = text.indexOf("\r\n\r\n");
  const head = split >= 0 ? text.slice(0, split) : text;
  const lines = head.split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? "");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: status ? Number(status[1]) : null, headers, body: split >= 0 ? text.slice(split + 4) : "" };
}

/** Sends raw bytes and collects everything until the server closes (or `timeoutMs`). */
export function rawRequest(port: number, raw: string | Buffer, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(raw));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks).toString("utf8")));
    });
  });
}

/** Opens a connection, sends `raw` and keeps the socket open without sending more. */
export function stalledRequest(port: number, raw: string): { socket: Socket; answer: Promise<RawAnswer> } {
  const socket = connect(port, "127.0.0.1", () => socket.write(raw));
  const chunks: Buffer[] = [];
  const answer = new Promise<RawAnswer>((resolve) => {
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(parseRaw(Buffer.concat(chunks).toString("utf8"))));
  });
  return { socket, answer };
}
