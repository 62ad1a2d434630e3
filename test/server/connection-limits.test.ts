// Connection exhaustion: idle keep-alive sockets, slowloris headers and stalled bodies must not
// take /health and /check offline. Real sockets on 127.0.0.1, no mocks. The thousand-connection
// floods are in connection-flood.heavy.test.ts (npm run test:heavy).
import { connect, type Socket } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { serviceControl } from "../../src/server/create-server.js";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from "../../src/server/limits.js";
import { pipelineFor, rawRequest } from "../support/server-harness.js";
import { serviceFixtures } from "../support/service-fixtures.js";
import { holdReplies } from "../support/held-replies.js";

const { cleanup, standIn, service } = serviceFixtures();

/** Opens a connection, waits until it is established, writes `raw` (if any) and holds it. */
function hold(port: number, raw: string | null, sockets: Socket[]): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => undefined);
    socket.on("data", () => undefined);
    socket.once("connect", () => {
      if (raw !== null) socket.write(raw);
      resolve(socket);
    });
    socket.once("close", () => resolve(socket));
  });
}

const stillOpen = (sockets: Socket[]): number => sockets.filter((s) => !s.destroyed && s.readyState === "open").length;

// The service acts on a connection a moment after the client sees it connected: a step waits until
// the service has done what the next assertion looks at (vi.waitFor retries it), not a fixed time
// a busy machine can outlast. The bound only turns a hang into a failure.
const SERVICE_ACTED = { timeout: 20_000, interval: 10 };
const closed = (socket: Socket): boolean => socket.destroyed || socket.readyState !== "open";

describe("connection exhaustion", () => {
  it("at the cap the oldest waiting connection is closed first, then the oldest unfinished body, never a running check", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris.");
    // Deadlines far beyond the test, so that only evictions close its connections, however slow the machine.
    const running = await service(pipelineFor(ollama.url), { maxConnections: 4, readTimeoutMs: 60_000, headersTimeoutMs: 60_000, keepAliveTimeoutMs: 60_000 });
    const port = running.port;
    const host = `Host: 127.0.0.1:${port}`;
    const sockets: Socket[] = [];
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    const limiter = serviceControl(running.server)!.connections;

    // A check whose body is complete: its canary call is held until the end of the test.
    const body = JSON.stringify({ text: "hello" });
    const busy = await hold(
      port,
      `POST /check HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      sockets,
    );
    const busyAnswer: Promise<string> = new Promise((resolve) => {
      const chunks: Buffer[] = [];
      busy.on("data", (chunk: Buffer) => chunks.push(chunk));
      busy.once("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    // A body that never finishes (tier 2), then a silent connection (tier 1).
    const slowBody = await hold(port, `POST /check HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"te`, sockets);
    const silent = await hold(port, null, sockets);
    await vi.waitFor(() => expect(limiter.state()).toMatchObject({ open: 3, waiting: 1, reading: 1 }), SERVICE_ACTED);

    // An idle keep-alive connection that connected after `silent`.
    const keptAlive = await hold(port, `GET /health HTTP/1.1\r\n${host}\r\n\r\n`, sockets);
    // Its answer arrived: it is idle between requests again, younger than `silent`, older than what follows.
    await new Promise((resolve) => keptAlive.once("data", resolve));
    await vi.waitFor(() => expect(limiter.state()).toMatchObject({ open: 4, waiting: 2, evicted: 0 }), SERVICE_ACTED);

    // Fifth connection: the oldest waiting one (`silent`) goes, not the older slow body.
    const fifth = await hold(port, null, sockets);
    await vi.waitFor(() => expect(closed(silent)).toBe(true), SERVICE_ACTED);
    expect(slowBody.destroyed).toBe(false);
    expect(keptAlive.destroyed).toBe(false);

    // Two more: `keptAlive`, then `fifth` (waiting ones first, oldest first).
    const sixth = await hold(port, null, sockets);
    await vi.waitFor(() => expect(closed(keptAlive)).toBe(true), SERVICE_ACTED);
    expect(slowBody.destroyed).toBe(false);
    await hold(port, null, sockets);
    await vi.waitFor(() => expect(closed(fifth)).toBe(true), SERVICE_ACTED);
    expect(sixth.destroyed).toBe(false);

    // A real request on a new connection still gets through, with the running check untouched.
    const health = await rawRequest(port, `GET /health HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`);
    expect(health.status).toBe(200);
    expect(busy.destroyed).toBe(false);
    release();
    expect(await busyAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect(limiter.state().evicted).toBeGreaterThanOrEqual(4);
  });

  it("when every connection holds an unfinished body, the oldest of them makes room", async () => {
    const ollama = await standIn();
    const running = await service(pipelineFor(ollama.url), { maxConnections: 3, readTimeoutMs: 60_000, headersTimeoutMs: 60_000 });
    const port = running.port;
    const host = `Host: 127.0.0.1:${port}`;
    const sockets: Socket[] = [];
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    const partial = `POST /check HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"te`;
    const slow: Socket[] = [];
    const limiter = serviceControl(running.server)!.connections;
    // One at a time, each read by the service before the next connects, so their age order is known.
    for (let i = 0; i < 3; i++) {
      slow.push(await hold(port, partial, sockets));
      await vi.waitFor(() => expect(limiter.state()).toMatchObject({ reading: i + 1 }), SERVICE_ACTED);
    }
    expect(limiter.state()).toMatchObject({ open: 3, waiting: 0, reading: 3 });
    const health = await rawRequest(port, `GET /health HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`);
    expect(health.status).toBe(200);
    expect(slow[0]!.destroyed || slow[0]!.readyState !== "open").toBe(true);
    expect(slow[1]!.destroyed).toBe(false);
    expect(slow[2]!.destroyed).toBe(false);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("headers and keep-alive idleness have short deadlines", async () => {
    const ollama = await standIn();
    const running = await service(pipelineFor(ollama.url));
    expect(DEFAULT_HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(5000);
    expect(DEFAULT_KEEP_ALIVE_TIMEOUT_MS).toBeLessThanOrEqual(2000);
    expect(running.server.headersTimeout).toBe(DEFAULT_HEADERS_TIMEOUT_MS);
    expect(running.server.keepAliveTimeout).toBe(DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
    // An idle keep-alive connection is closed by the service after its idle deadline: one held on a
    // service with a 200 ms deadline closes before one opened earlier on a service with the default
    // (an order, not a duration, so a busy machine cannot fail it).
    const quick = await service(pipelineFor(ollama.url), { keepAliveTimeoutMs: 200, headersTimeoutMs: 300 });
    const sockets: Socket[] = [];
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    const idleRequest = (port: number) => `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const closedFirst = (socket: Socket, name: string) => new Promise<string>((resolve) => socket.once("close", () => resolve(name)));
    const usual = await hold(running.port, idleRequest(running.port), sockets);
    const idle = await hold(quick.port, idleRequest(quick.port), sockets);
    expect(await Promise.race([closedFirst(usual, "default deadline"), closedFirst(idle, "200 ms deadline")])).toBe("200 ms deadline");
  });

  it("serve --max-connections sets the cap and refuses 0", async () => {
    const { runLocal } = await import("../support/run-local.js");
    expect(await runLocal(["serve", "--port", "0", "--no-canary", "--max-connections", "0"]).done).toBe(2);
    const run = runLocal(["serve", "--port", "0", "--no-canary", "--max-connections", "3"]);
    const line = await run.stderr.waitFor(/on http:\/\/127\.0\.0\.1:(\d+)/);
    const port = Number(line[1]);
    expect(run.stderr.text).toContain("Connections: at most 3");
    const sockets: Socket[] = [];
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    for (let i = 0; i < 10; i++) await hold(port, null, sockets);
    await vi.waitFor(() => expect(stillOpen(sockets)).toBeLessThanOrEqual(3), SERVICE_ACTED);
    const health = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(health.status).toBe(200);
    run.signal("SIGINT");
    expect(await run.done).toBe(0);
  });
});
