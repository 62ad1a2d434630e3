// Which connection is closed to make room: never one whose request has arrived. A burst of
// stalled connections accepted in the same turn as a real caller must not close the caller
// before its bytes are read, and when every slot holds a caller being answered the newcomer is
// the one refused. Order is controlled by events (the server having seen each connection and
// each request head, a released health check, counted loop turns), never by sleeps.
import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { HealthReport } from "../../src/pipeline/health.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { ConnectionLimiter } from "../../src/server/connection-limiter.js";
import { serviceControl } from "../../src/server/create-server.js";
import { startService, stalledRequest, type RawAnswer } from "../support/server-harness.js";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** Stands in for a net.Socket: the limiter only destroys it and listens for its close. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit("close");
  }
}

/** A limiter on a fake server whose loop turns the test runs by hand. */
function limiterWithTurns(max: number, slack?: number) {
  const pending: Array<() => void> = [];
  const server = new EventEmitter();
  const limiter = new ConnectionLimiter(max, { slack, nextTurn: (fn) => pending.push(fn) });
  limiter.attach(server as unknown as Server);
  return {
    limiter,
    /** One loop turn: the limiter's end-of-turn work runs (what it schedules runs on the next). */
    turn: (count = 1) => {
      for (let i = 0; i < count; i++) for (const fn of pending.splice(0)) fn();
    },
    connect: (): FakeSocket => {
      const socket = new FakeSocket();
      server.emit("connection", socket as unknown as Socket);
      return socket;
    },
  };
}

describe("connection eviction never closes a real caller", () => {
  it("a caller accepted in the same burst as stalled connections keeps its connection once its request head is read", () => {
    const { limiter, turn, connect } = limiterWithTurns(2, 1);
    const stalled = [connect(), connect()];
    turn(3);
    // One accept callback: the caller, then three silent newcomers; the caller's request bytes
    // are read only on the next turn.
    const caller = connect();
    const newcomers = [connect(), connect(), connect()];
    limiter.requestStarted(caller as unknown as Socket);
    turn(3);
    expect(caller.destroyed).toBe(false);
    expect(stalled.every((s) => s.destroyed)).toBe(true);
    // Beyond max + slack with nothing settled to close, the newest newcomer was refused.
    expect(newcomers[2]!.destroyed).toBe(true);
    expect(limiter.state().open).toBe(2);
  });

  it("when every slot holds a caller being answered, silent newcomers are closed and no caller is", () => {
    const { limiter, turn, connect } = limiterWithTurns(3, 1);
    const callers = [connect(), connect(), connect()];
    for (const caller of callers) limiter.requestStarted(caller as unknown as Socket);
    turn(3);
    const newcomers = [connect(), connect(), connect()];
    turn(3);
    expect(callers.some((s) => s.destroyed)).toBe(false);
    expect(newcomers.every((s) => s.destroyed)).toBe(true);
    expect(limiter.state()).toMatchObject({ open: 3, evicted: 3 });
  });

  it("a connection that has just sent nothing is not closed before a full turn has passed, then the oldest goes first", () => {
    const { limiter, turn, connect } = limiterWithTurns(2, 2);
    const first = connect();
    const second = connect();
    const third = connect();
    expect([first, second, third].some((s) => s.destroyed)).toBe(false);
    turn(1);
    expect(first.destroyed).toBe(false);
    turn(1);
    expect(first.destroyed).toBe(true);
    expect(second.destroyed || third.destroyed).toBe(false);
    expect(limiter.state().open).toBe(2);
  });
});

/** A pipeline whose first health check answers at once and every later one when `release()` is called. */
function gatedHealthPipeline(): { pipeline: SecurityPipeline; release: () => void } {
  let calls = 0;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const ready: HealthReport = {
    structural_filter: true,
    canary_enabled: true,
    mode: "advisory",
    provider: "ollama",
    analyzer: "regex",
    on_degraded: "fail_open",
    canary_model: "qwen2.5:1.5b",
    canary_available: true,
    ready: true,
    degraded: false,
    status: "ready",
    coverage: "behavioral",
  };
  class GatedPipeline extends SecurityPipeline {
    override async healthCheck(): Promise<HealthReport> {
      if (calls++ > 0) await gate;
      return ready;
    }
  }
  return { pipeline: new GatedPipeline({ mode: "advisory", ollamaUrl: "http://127.0.0.1:9" }), release: open };
}

/** Resolves once `server` has emitted `event` `count` times in all (counted from now). */
function counter(server: Server, event: "connection" | "request"): (count: number) => Promise<void> {
  let seen = 0;
  const waiters: Array<{ count: number; wake: () => void }> = [];
  server.on(event, () => {
    seen++;
    for (const w of waiters.filter((w) => seen >= w.count)) w.wake();
  });
  return (count) => (seen >= count ? Promise.resolve() : new Promise((wake) => waiters.push({ count, wake })));
}

/** Lets the event loop turn `count` times (the limiter settles connections by turns, not time). */
async function loopTurns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

function silent(port: number, sockets: Socket[]): { socket: Socket; closed: Promise<void> } {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, closed };
}

describe("the service answers every caller whose request has arrived, under stalled connections", () => {
  it("stalled connections fill the cap, callers' requests arrive, more stalled ones follow: every caller is answered", async () => {
    const MAX = 8;
    const CALLERS = 8;
    let now = 0;
    const { pipeline, release } = gatedHealthPipeline();
    const running = await startService(pipeline, { maxConnections: MAX, now: () => now, healthStaleWaitMs: 600_000 });
    cleanup.push(() => running.close());
    const sockets: Socket[] = [];
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    const connections = counter(running.server, "connection");
    const requests = counter(running.server, "request");
    // The cached report is too old: each /health waits for a new check, which the test holds.
    now = 60_000;

    const firstStalled = Array.from({ length: MAX }, () => silent(running.port, sockets));
    await connections(MAX);
    await loopTurns(3);

    const answers: Array<Promise<RawAnswer>> = [];
    for (let i = 0; i < CALLERS; i++) {
      const call = stalledRequest(running.port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nConnection: close\r\n\r\n`);
      sockets.push(call.socket);
      answers.push(call.answer);
    }
    await requests(CALLERS);
    await connections(MAX + CALLERS);
    await loopTurns(3);
    // The callers took the stalled connections' places.
    await Promise.all(firstStalled.map((s) => s.closed));

    const later = Array.from({ length: 4 }, () => silent(running.port, sockets));
    await connections(MAX + CALLERS + later.length);
    await loopTurns(3);

    release();
    const answered = (await Promise.all(answers)).filter((a) => a.status === 200).length;
    expect(answered).toBe(CALLERS);
    // The newcomers, not the callers, were refused.
    await Promise.all(later.map((s) => s.closed));
    expect(serviceControl(running.server)!.connections.state().open).toBeLessThanOrEqual(MAX);
  });
});
