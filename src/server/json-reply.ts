// Every answer of the service is one JSON document with an exact Content-Length, so clients parse
// every answer alike. Error bodies are fixed strings; request text, canary replies and exception
// messages never reach them.
import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Reply {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** Close the connection after answering (the request body may not have been read). */
  readonly close?: boolean;
  /** `body` already serialised, sent as it is (a batch document's canonical JSON, as `screen` prints it). */
  readonly json?: string;
}

export function errorReply(status: number, error: string, extra: Partial<Reply> = {}): Reply {
  return { status, body: { error }, ...extra };
}

/** The fixed error replies of the ladder, by name, so tests and docs can refer to them. */
export const REPLIES = {
  notFound: errorReply(404, "not found", { close: true }),
  unsupportedMediaType: errorReply(415, "content type must be application/json", { close: true }),
  lengthRequired: errorReply(411, "content length required", { close: true }),
  invalidLength: errorReply(400, "invalid content length", { close: true }),
  emptyBody: errorReply(400, "request body must not be empty", { close: true }),
  malformedJson: errorReply(400, "malformed JSON"),
  notAnObject: errorReply(400, "request body must be a JSON object"),
  textRequired: errorReply(400, "text is required"),
  textNotString: errorReply(400, "text must be a string"),
  textEmpty: errorReply(400, "text must not be empty"),
  textNotWellFormed: errorReply(400, "text must not contain lone surrogates"),
  pipelineUnavailable: errorReply(503, "pipeline unavailable"),
  pipelineFailed: errorReply(503, "pipeline check failed"),
  busy: errorReply(503, "server busy: check queue is full", { close: true }),
  bodyTimeout: errorReply(408, "request body timeout", { close: true }),
  headerTimeout: errorReply(408, "request timeout", { close: true }),
  badRequest: errorReply(400, "bad request", { close: true }),
  shuttingDown: errorReply(503, "server shutting down", { close: true }),
} as const;

function encode(reply: Reply): Buffer {
  return Buffer.from(reply.json ?? JSON.stringify(reply.body), "utf8");
}

/** The headers of every answer, in wire order (`sendReply` sends the names lower-cased). */
function headersOf(reply: Reply, length: number, close: boolean): Array<[string, string | number]> {
  return [
    ["Content-Type", "application/json; charset=utf-8"],
    ["Content-Length", length],
    ["Cache-Control", "no-store"],
    ...Object.entries(reply.headers ?? {}),
    ...(close ? [["Connection", "close"] as [string, string]] : []),
  ];
}

/** Sends `reply` on a response that has not started yet. */
export function sendReply(res: ServerResponse, reply: Reply, forceClose = false): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = encode(reply);
  const headers = headersOf(reply, bytes.byteLength, reply.close === true || forceClose);
  res.writeHead(reply.status, Object.fromEntries(headers.map(([name, value]) => [name.toLowerCase(), value])));
  res.end(bytes);
}

/**
 * Writes `reply` straight onto a socket whose request the HTTP parser refused (clientError), then
 * ends the connection. Node would otherwise answer with a bare status line and no JSON.
 */
export function writeRawReply(socket: Socket, reply: Reply): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const bytes = encode(reply);
  const lines = headersOf(reply, bytes.byteLength, true).map(([name, value]) => `${name}: ${value}\r\n`);
  const head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? "Error"}\r\n${lines.join("")}\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), bytes]));
}
