// Keeps the service reachable when clients hold connections open without using them (idle
// keep-alive sockets, slowloris headers, bodies that never finish), never closing a real caller's
// connection to make room. Node's `maxConnections` refuses the *new* connection at the cap, so a
// few hundred stalled sockets would lock every caller out; here the one waiting longest without
// work is closed instead: the oldest "waiting" (no complete request head), then the oldest
// "reading" (a body not yet read), never one being answered (bounded by the queue and health wait).
// A connection is a candidate only after the event loop has had a full turn to read what it sent:
// libuv accepts a burst in one callback and reads it on a later turn, so a real caller whose
// request was already in the kernel would otherwise look silent. So a connection accepted (or
// changing state) on turn t is not closed before turn t + 2; newcomers beyond the cap are held up
// to `max + slack` meanwhile, and with no candidate left the newest connection, which has sent
// nothing, is refused. After each turn at most `max` stay open unless more callers are answered.
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Options of ConnectionLimiter (tests inject the turn scheduler). */
export interface ConnectionLimiterOptions {
  /**
   * Connections held beyond `max` for the turn it takes to read what they sent (default: a
   * quarter of `max`, at least 1). Beyond `max + slack` a newcomer is refused at once when no
   * settled candidate is left.
   */
  readonly slack?: number;
  /** Runs `fn` after the I/O that is ready now has been read (default `setImmediate`). */
  readonly nextTurn?: (fn: () => void) => void;
}

/** Holds the service's open connections to `max`, closing stalled ones for newcomers, never a caller's. */
export class ConnectionLimiter {
  readonly #max: number;
  readonly #slack: number;
  readonly #nextTurn: (fn: () => void) => void;
  /** Every open connection. */
  readonly #open = new Set<Socket>();
  /** Tier 1, oldest first, with the turn it entered (Map keeps insertion order). */
  readonly #waiting = new Map<Socket, number>();
  /** Tier 2, oldest first, with the turn it entered. */
  readonly #reading = new Map<Socket, number>();
  #evicted = 0;
  #turn = 0;
  /** Latest turn a connection entered a tier: ticking goes on until it is settled. */
  #latest = 0;
  #ticking = false;

  constructor(max: number, options: ConnectionLimiterOptions = {}) {
    this.#max = max;
    this.#slack = options.slack ?? Math.max(1, Math.ceil(max / 4));
    this.#nextTurn = options.nextTurn ?? ((fn) => void setImmediate(fn));
  }

  /** Starts tracking the connections of `server`. */
  attach(server: Pick<Server, "on">): void {
    server.on("connection", (socket: Socket) => this.#accept(socket));
  }

  #accept(socket: Socket): void {
    if (this.#open.size >= this.#max + this.#slack && !this.#evictOne()) {
      // Nothing settled to close: the newcomer, which has not been read at all, is refused.
      this.#evicted++;
      socket.destroy();
      return;
    }
    this.#open.add(socket);
    this.#enter(this.#waiting, socket);
    socket.once("close", () => this.#forget(socket));
  }

  /** Puts `socket` at the young end of `tier`, stamped with this turn. */
  #enter(tier: Map<Socket, number>, socket: Socket): void {
    this.#waiting.delete(socket);
    this.#reading.delete(socket);
    tier.set(socket, this.#turn);
    this.#latest = this.#turn;
    this.#schedule();
  }

  /** The oldest settled candidate (tier 1 first); insertion order is stamp order, so only the first of each tier is looked at. */
  #candidate(): Socket | undefined {
    for (const tier of [this.#waiting, this.#reading]) {
      const oldest = tier.entries().next().value;
      if (oldest !== undefined && oldest[1] <= this.#turn - 2) return oldest[0];
    }
    return undefined;
  }

  #evictOne(): boolean {
    const victim = this.#candidate();
    if (victim === undefined) return false;
    this.#forget(victim);
    this.#evicted++;
    victim.destroy();
    return true;
  }

  #schedule(): void {
    if (this.#ticking) return;
    this.#ticking = true;
    this.#nextTurn(() => this.#tick());
  }

  #tick(): void {
    this.#ticking = false;
    this.#turn++;
    while (this.#open.size > this.#max && this.#evictOne());
    if (this.#latest > this.#turn - 2) this.#schedule();
  }

  #forget(socket: Socket): void {
    this.#open.delete(socket);
    this.#waiting.delete(socket);
    this.#reading.delete(socket);
  }

  /** A complete request head arrived on `socket`: it is being answered and is never closed for room. */
  requestStarted(socket: Socket): void {
    this.#waiting.delete(socket);
    this.#reading.delete(socket);
  }

  /** A `/check` on `socket` is waiting for its body (tier 2) until workStarted. */
  bodyStarted(socket: Socket): void {
    if (!this.#open.has(socket)) return;
    this.#enter(this.#reading, socket);
  }

  /** The request's body is read and its work has begun: not evictable until the answer is sent. */
  workStarted(socket: Socket): void {
    this.#reading.delete(socket);
  }

  /** The answer on `socket` is complete; a kept-alive connection waits again, as the newest. */
  responseDone(socket: Socket): void {
    if (!this.#open.has(socket) || socket.destroyed) return;
    this.#enter(this.#waiting, socket);
  }

  /** Open connections and how many were closed to make room, for tests and diagnostics. */
  state(): { readonly open: number; readonly waiting: number; readonly reading: number; readonly evicted: number; readonly max: number } {
    return { open: this.#open.size, waiting: this.#waiting.size, reading: this.#reading.size, evicted: this.#evicted, max: this.#max };
  }
}
