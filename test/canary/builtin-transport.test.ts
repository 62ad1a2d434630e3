// The built-in transport of httpCall (node:http over a keep-alive agent) against the fetch path
// it replaces by default: for every reply shape and failure a backend can show, both give the
// same outcome, and the built-in one keeps the deadline, the abort and the byte cap.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpCall, type HttpCallOptions } from "../../src/canary/http-call.js";

type Route = (req: IncomingMessage, res: ServerResponse) => void;

const ROUTES: Readonly<Record<string, Route>> = {
  "/ok": (_req, res) => {
    const body = Buffer.from('{"a":"é"}');
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  },
  "/chunked": (_req, res) => {
    res.writeHead(200);
    res.write('{"a":');
    res.end("1}");
  },
  "/status-500": (_req, res) => {
    res.writeHead(500, { "content-length": 2 });
    res.end("xx");
  },
  "/redirect": (_req, res) => {
    res.writeHead(301, { location: "/ok" });
    res.end();
  },
  "/redirect-no-location": (_req, res) => {
    res.writeHead(307);
    res.end();
  },
  "/no-content": (_req, res) => {
    res.writeHead(204);
    res.end();
  },
  "/declared-too-large": (_req, res) => {
    res.writeHead(200, { "content-length": 5000 });
    res.end("x".repeat(5000));
  },
  "/chunked-too-large": (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 10; i++) res.write("x".repeat(500));
    res.end();
  },
  "/exactly-the-cap": (_req, res) => {
    res.writeHead(200);
    res.end("y".repeat(1024));
  },
  "/truncated": (_req, res) => {
    res.writeHead(200, { "content-length": 100 });
    res.write('{"message":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  "/truncated-chunked": (_req, res) => {
    res.writeHead(200);
    res.write('{"message":');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  "/drop": (_req, res) => {
    res.socket?.destroy();
  },
  "/hang": () => undefined,
  "/hang-in-body": (req, res) => {
    hangingSockets.push(req.socket);
    res.writeHead(200, { "content-length": 10 });
    res.write("abc");
  },
  "/not-utf8": (_req, res) => {
    res.writeHead(200);
    res.end(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
  },
  "/bom": (_req, res) => {
    res.writeHead(200);
    res.end(Buffer.from([0xef, 0xbb, 0xbf, 0x31]));
  },
  "/gzip": (_req, res) => {
    const body = gzipSync('{"z":1}');
    res.writeHead(200, { "content-encoding": "gzip", "content-length": body.length });
    res.end(body);
  },
  "/gzip-over-the-cap": (_req, res) => {
    const body = gzipSync("0".repeat(100_000));
    res.writeHead(200, { "content-encoding": "gzip", "content-length": body.length });
    res.end(body);
  },
  "/gzip-broken": (_req, res) => {
    res.writeHead(200, { "content-encoding": "gzip" });
    res.end("not gzip at all");
  },
  "/unknown-coding": (_req, res) => {
    res.writeHead(200, { "content-encoding": "zstd-x" });
    res.end("raw");
  },
  "/bad-http": (_req, res) => {
    res.socket?.write("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello");
    res.socket?.destroy();
  },
  "/echo": (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const seen = JSON.stringify({
        method: req.method,
        url: req.url,
        body,
        contentType: req.headers["content-type"] ?? null,
        accept: req.headers.accept ?? null,
        authorization: req.headers.authorization ?? null,
        contentLength: req.headers["content-length"] ?? null,
      });
      res.writeHead(200, { "content-length": Buffer.byteLength(seen) });
      res.end(seen);
    });
  },
};

let server: Server;
let base: string;
const sockets = new Set<Socket>();
const connections: Socket[] = [];
const fetchMarks: boolean[] = [];
/** The server side of each /hang-in-body request, to see the client hang up at its deadline. */
const hangingSockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    // fetch announces itself with Fetch-standard headers; Node's own client sends none of them.
    fetchMarks.push(req.headers["sec-fetch-mode"] !== undefined);
    const route = ROUTES[new URL(req.url ?? "/", "http://x").pathname];
    if (route) route(req, res);
    else {
      res.writeHead(404, { "content-length": 4 });
      res.end("nope");
    }
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    connections.push(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Forces the fetch path: any fetch other than Node's own is called as given. */
const viaFetch: typeof fetch = (input, init) => fetch(input, init);
// A deadline no answering route comes near, even on a busy machine; the hanging routes get a short
// one of their own, as only they are meant to reach it.
const OPTIONS: HttpCallOptions = { method: "GET", timeoutMs: 10_000, maxBodyBytes: 1024 };
const HANG_OPTIONS: HttpCallOptions = { ...OPTIONS, timeoutMs: 400 };

describe("the built-in transport gives the fetch path's outcome", () => {
  it.each(Object.keys(ROUTES).filter((path) => path !== "/echo"))("%s", async (path) => {
    const options = path.startsWith("/hang") ? HANG_OPTIONS : OPTIONS;
    const built = await httpCall(fetch, `${base}${path}`, options);
    const fetched = await httpCall(viaFetch, `${base}${path}`, options);
    expect(built).toEqual(fetched);
  });

  it("a POST carries the same method, path, query, headers and body", async () => {
    const options: HttpCallOptions = { ...OPTIONS, method: "POST", json: { text: "é ✓ \u{1F600}" }, headers: { authorization: "Basic abc" } };
    const built = await httpCall(fetch, `${base}/echo?q=1#fragment`, options);
    const fetched = await httpCall(viaFetch, `${base}/echo?q=1#fragment`, options);
    expect(built).toEqual(fetched);
    expect(built.kind === "response" && JSON.parse(built.body)).toMatchObject({
      method: "POST",
      url: "/echo?q=1",
      body: '{"text":"é ✓ \u{1F600}"}',
      contentType: "application/json",
      accept: "application/json",
      authorization: "Basic abc",
    });
  });

  it.each([
    ["a refused connection", "http://127.0.0.1:1/x"],
    ["a port fetch refuses", "http://127.0.0.1:9/x"],
    ["an unknown host", "http://no-such-host.invalid/x"],
    ["TLS to a plain HTTP server", "https://127.0.0.1:PORT/ok"],
    ["an unsupported scheme", "ftp://127.0.0.1/x"],
  ])("%s", async (_name, url) => {
    const target = url.replace("PORT", new URL(base).port);
    expect(await httpCall(fetch, target, OPTIONS)).toEqual(await httpCall(viaFetch, target, OPTIONS));
  });

  it("an invalid header value is refused the same way", async () => {
    const options: HttpCallOptions = { ...OPTIONS, headers: { "x-bad": "a\nb" } };
    expect(await httpCall(fetch, `${base}/ok`, options)).toEqual(await httpCall(viaFetch, `${base}/ok`, options));
  });
});

describe("the default transport is Node's HTTP client on a kept-alive socket", () => {
  it("sends no fetch headers and reuses one connection for consecutive calls", async () => {
    const connectionsBefore = connections.length;
    const marksBefore = fetchMarks.length;
    for (let i = 0; i < 5; i++) {
      const outcome = await httpCall(fetch, `${base}/ok`, OPTIONS);
      expect(outcome).toEqual({ kind: "response", status: 200, body: '{"a":"é"}' });
    }
    expect(fetchMarks.slice(marksBefore)).toEqual([false, false, false, false, false]);
    expect(connections.length - connectionsBefore).toBeLessThanOrEqual(1);
  });

  it("the deadline covers a body that stops arriving, and the socket is destroyed (the abort)", async () => {
    const before = hangingSockets.length;
    // The body never arrives: a "timeout" outcome at all shows the deadline ended the read.
    const outcome = await httpCall(fetch, `${base}/hang-in-body`, { ...OPTIONS, timeoutMs: 150 });
    expect(outcome).toEqual({ kind: "timeout" });
    const socket = hangingSockets[before] as Socket;
    // The server sees the client close the connection it was still answering on.
    for (let i = 0; i < 500 && !socket.destroyed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(socket.destroyed).toBe(true);
  });

  it("a body over the cap is cut off after the bytes that exceed it, not read to its end", async () => {
    const outcome = await httpCall(fetch, `${base}/chunked-too-large`, { ...OPTIONS, maxBodyBytes: 600 });
    expect(outcome).toEqual({ kind: "unreadable_body", status: 200, reason: "too_large" });
  });
});

describe("a kept-alive socket the server closed while idle", () => {
  it("after it sat idle over a second, a request reset on it goes again on a new connection; straight after an answer, or on a new connection, the reset is the outcome", async () => {
    // A server that answers the first request of each connection and keeps it open, then resets
    // the connection when a second request arrives on it: what a client sees when the server's
    // keep-alive timeout ran out while the socket sat in the client's pool.
    const { createServer: createNetServer } = await import("node:net");
    const reply = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 8\r\nconnection: keep-alive\r\n\r\n{"ok":1}';
    let connectionsMade = 0;
    let resetEveryRequest = false;
    const open = new Set<Socket>();
    const server = createNetServer((socket) => {
      connectionsMade++;
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => undefined);
      let requests = 0;
      socket.on("data", (chunk: Buffer) => {
        if (!chunk.includes("\r\n\r\n")) return;
        requests++;
        if (requests > 1 || resetEveryRequest) socket.resetAndDestroy();
        else socket.write(reply);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    try {
      expect(await httpCall(fetch, url, OPTIONS)).toEqual({ kind: "response", status: 200, body: '{"ok":1}' });
      // Straight after an answer, a reset on the same connection is the server dropping the request.
      expect((await httpCall(fetch, url, OPTIONS)).kind).toBe("unavailable");
      expect(await httpCall(fetch, url, OPTIONS)).toEqual({ kind: "response", status: 200, body: '{"ok":1}' });
      // After the connection sat idle for over a second, a reset is the server's idle close.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await httpCall(fetch, url, OPTIONS)).toEqual({ kind: "response", status: 200, body: '{"ok":1}' });
      // That call landed on the idle connection, was reset there, and went again on a new one.
      expect(connectionsMade).toBe(3);
      resetEveryRequest = true;
      const failed = await httpCall(fetch, url, OPTIONS);
      expect(failed.kind).not.toBe("response");
    } finally {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
