// Keeps the service reachable when clients hold connections open without using them (idle
// keep-alive sockets, slowloris clients that trickle their headers, bodies that never finish).
// Node's own `maxConnections` refuses the *new* connection once the cap is reached, so a few
// hundred stalled sockets would lock every real caller out until they time out. Here the new
// connection is always accepted and, at the cap, the connection that has been waiting the
// longest without work in progress is closed instead:
//   1. first the oldest "waiting" one: connected or between requests, no complete request head;
//   2. then the oldest "reading" one: head received, body not yet read;
//   3. never one whose check is queued or running, or whose answer is being sent (those are
//      bounded by the check queue and answer promptly).
// If every connection is in tier 3 the new one is closed. At most `max` connections stay open.
import type { Server } from "node:http";
import type { Socket } from "node:net";

export class ConnectionLimiter {
  readonly #max: number;
  /** Every open connection. */
  readonly #open = new Set<Socket>();
  /** Tier 1, oldest first (Map keeps insertion order; a socket is re-inserted when it goes idle). */
  readonly #waiting = new Map<Socket, true>();
  /** Tier 2, oldest first. */
  readonly #reading = new Map<Socket, true>();
  #evicted = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** Starts tracking the connections of `server`. */
  attach(server: Server): void {
    server.on("connection", (socket: Socket) => this.#accept(socket));
  }

  #accept(socket: Socket): void {
    if (this.#open.size >= this.#max && !this.#evictOne()) {
      this.#evicted++;
      socket.destroy();
      return;
    }
    this.#open.add(socket);
    this.#waiting.set(socket, true);
    socket.once("close", () => this.#forget(socket));
  }

  #evictOne(): boolean {
    const victim = first(this.#waiting) ?? first(this.#reading);
    if (victim === undefined) return false;
    this.#forget(victim);
    this.#evicted++;
    victim.destroy();
    return true;
  }

  #forget(socket: Socket): void {
    this.#open.delete(socket);
    this.#waiting.delete(socket);
    this.#reading.delete(socket);
  }

  /** A complete request head arrived on `socket`: it is reading its body (tier 2). */
  requestStarted(socket: Socket): void {
    if (!this.#open.has(socket)) return;
    this.#waiting.delete(socket);
    this.#reading.set(socket, true);
  }

  /** The request's body is read and its work has begun: not evictable until the answer is sent. */
  workStarted(socket: Socket): void {
    this.#reading.delete(socket);
  }

  /** The answer on `socket` is complete; a kept-alive connection waits again, as the newest. */
  responseDone(socket: Socket): void {
    if (!this.#open.has(socket) || socket.destroyed) return;
    this.#reading.delete(socket);
    this.#waiting.delete(socket);
    this.#waiting.set(socket, true);
  }

  /** Open connections and how many were closed to make room, for tests and diagnostics. */
  state(): { readonly open: number; readonly waiting: number; readonly reading: number; readonly evicted: number; readonly max: number } {
    return { open: this.#open.size, waiting: this.#waiting.size, reading: this.#reading.size, evicted: this.#evicted, max: this.#max };
  }
}

function first<K>(map: Map<K, unknown>): K | undefined {
  for (const key of map.keys()) return key;
  return undefined;
}
