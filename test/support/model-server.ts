// A loopback file server for `model pull` tests: serves one generated file at /model.gguf on
// 127.0.0.1 (port 0), honours `Range: bytes=N-` with 206 and Content-Range, and can ignore ranges
// or stall mid-body (`stallAfterBytes`), after which a test cuts the connection (`cut`) when the
// client says it holds the bytes: a cut on a timer races a busy client. It records the Range
// header of every request so a test can see that a pull resumed.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** How the server misbehaves. */
export interface ModelServerOptions {
  /** Answer every request 200 with the whole file, whatever its Range. */
  ignoreRange?: boolean;
  /** Send this many bytes, then nothing more while the connection stays open (once). */
  stallAfterBytes?: number;
  /** Send no Content-Length (chunked), so only the bytes themselves tell the size. */
  noLength?: boolean;
}

/** A running server. */
export interface ModelServer {
  readonly url: string;
  /** The Range header of each request (null when it had none), in order. */
  readonly ranges: (string | null)[];
  readonly options: ModelServerOptions;
  /** Destroys every open connection (the server keeps listening). */
  cut(): void;
  close(): Promise<void>;
}

export async function startModelServer(bytes: Buffer, options: ModelServerOptions = {}): Promise<ModelServer> {
  const ranges: (string | null)[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const range = req.headers.range ?? null;
    ranges.push(range);
    const match = range !== null && options.ignoreRange !== true ? /^bytes=(\d+)-$/.exec(range) : null;
    const start = match === null ? 0 : Number(match[1]);
    if (start >= bytes.length && match !== null) {
      res.writeHead(416, { "content-range": `bytes */${bytes.length}` });
      res.end();
      return;
    }
    const body = bytes.subarray(start);
    const headers: Record<string, string | number> = { "content-type": "application/octet-stream", "content-length": body.length, "accept-ranges": "bytes" };
    if (options.noLength === true) delete headers["content-length"];
    if (match !== null) headers["content-range"] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    res.writeHead(match !== null ? 206 : 200, headers);
    const stall = options.stallAfterBytes;
    if (stall !== undefined) {
      options.stallAfterBytes = undefined;
      res.write(body.subarray(0, stall));
      return;
    }
    res.end(body);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/model.gguf`,
    ranges,
    options,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
