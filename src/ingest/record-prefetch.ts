// Record prefetch: with a verdict cache, a worker thread (record-prefetch-worker.ts, its own cache
// connection) reads the stored entries of the run's records while the first pass parses, so an
// unchanged corpus finds them ready. The first pass offers each planned record (position, line
// SHA-256); the worker checks what is stored under its key as a lookup would
// (record-prefetch-batch.ts) and the entries that hold are appended in order to a scratch file.
// Memory: at most MAX_IN_FLIGHT keys and one batch of answers (the first pass waits). The
// identity is known only after the gate, so the second pass takes the entry under its identity's
// row id and looks others up itself. Only a head start: any failure leaves records to the run's
// own lookup, and the manifest is the same byte for byte.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { isAscii } from "node:buffer";
import { ScratchFile, ScratchFileError, scratchLines } from "../publish/scratch-file.js";
import { recordEntryKeyOf, type RecordEntrySettings } from "./record-cache.js";
import type { PrefetchedHead, PrefetchItem } from "./record-prefetch-batch.js";
import type { PrefetchWorkerData, PrefetchWorkerReply } from "./record-prefetch-worker.js";
import type { EntryFacts } from "./run-summary.js";
import { displayText } from "../core/display-text.js";

/** Records sent to the worker in one message. */
const BATCH = 256;
/** Records offered and not yet answered and written, at most: the first pass waits beyond this. */
const MAX_IN_FLIGHT = 4096;
/** How long `finish` waits for the last answers (at most MAX_IN_FLIGHT, well under a second): later, it is stuck. */
const FINISH_TIMEOUT_MS = 60_000;

/** Options of `RecordPrefetch.start`. */
export interface RecordPrefetchOptions {
  /** The verdict cache file (already opened by the run, so it exists and is a cache). */
  readonly cachePath: string;
  readonly settings: RecordEntrySettings;
  /** The scratch file goes beside this path (the manifest). */
  readonly besidePath: string;
  /** The run's abort signal: it stops the prefetch, so a first pass waiting for the worker goes on (and meets the abort). */
  readonly signal?: AbortSignal;
  /** The worker's script; by default the compiled record-prefetch-worker.js beside this module. */
  readonly workerUrl?: URL;
}

/** What a prefetch did, for tests and diagnostics. */
export interface RecordPrefetchStats {
  /** Records offered by the first pass. */
  readonly offered: number;
  /** Records the worker answered (with an entry or without). */
  readonly answered: number;
  /** Entries written for the second pass. */
  readonly entries: number;
  /** Why the prefetch stopped early (the failing error's name), or null. */
  readonly failed: string | null;
}

/** A prefetched entry, ready for the manifest. */
export interface PrefetchedEntry {
  /** The entry's canonical JSON at its position. */
  readonly json: string;
  readonly segments: number;
  readonly facts: EntryFacts;
}

/** The prefetch while the first pass runs: offered records go to the worker. */
export class RecordPrefetch {
  readonly #worker: Worker;
  readonly #spool: ScratchFile;
  readonly #keyOf: (lineSha256: string) => string;
  #batch: PrefetchItem[] = [];
  #inFlight = 0;
  #offered = 0;
  #answered = 0;
  #entries = 0;
  #failed: string | null = null;
  #waiters: (() => void)[] = [];
  #appended: Promise<void> = Promise.resolve();
  #appendFailed = false;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => this.#fail("AbortError");

  private constructor(worker: Worker, spool: ScratchFile, keyOf: (lineSha256: string) => string, signal: AbortSignal | undefined) {
    this.#worker = worker;
    this.#spool = spool;
    this.#keyOf = keyOf;
    this.#signal = signal;
    if (signal?.aborted) this.#onAbort();
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    worker.unref();
    worker.on("message", (reply: PrefetchWorkerReply) => this.#onReply(reply));
    worker.on("error", (error: Error) => this.#fail(error.constructor.name));
    worker.on("exit", () => this.#fail("WorkerExited"));
  }

  /** Starts a prefetch, or gives null when its worker script is not there (a bundled or uncompiled build). */
  static async start(options: RecordPrefetchOptions): Promise<RecordPrefetch | null> {
    const url = options.workerUrl ?? new URL("./record-prefetch-worker.js", import.meta.url);
    if (url.protocol !== "file:" || !existsSync(fileURLToPath(url))) return null;
    // Only a head start: a scratch file that cannot be made means no prefetch, not a failed run.
    const spool = await ScratchFile.create(options.besidePath, "record-prefetch").catch(() => null);
    if (spool === null) return null;
    const workerData: PrefetchWorkerData = { cachePath: options.cachePath, policy: options.settings.policy };
    let worker: Worker;
    try {
      worker = new Worker(url, { workerData });
    } catch {
      await spool.remove();
      return null;
    }
    return new RecordPrefetch(worker, spool, recordEntryKeyOf(options.settings), options.signal);
  }

  /** Offers a planned record; a promise to await while the worker is MAX_IN_FLIGHT behind (FINISH_TIMEOUT_MS: stuck, stop). */
  offer(index: number, lineSha256: string): Promise<void> | undefined {
    if (this.#failed !== null) return undefined;
    this.#batch.push([index, this.#keyOf(lineSha256)]);
    this.#offered++;
    if (this.#batch.length >= BATCH) this.#post();
    if (this.#inFlight < MAX_IN_FLIGHT) return undefined;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#fail("TimeoutError"), FINISH_TIMEOUT_MS);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Sends the last batch, waits for every answer (an abort or FINISH_TIMEOUT_MS ends the wait), stops the worker, seals the entries. */
  async finish(): Promise<PrefetchedEntries> {
    if (this.#failed === null && this.#batch.length > 0) this.#post();
    const timer = setTimeout(() => this.#fail("TimeoutError"), FINISH_TIMEOUT_MS);
    try {
      while (this.#failed === null && this.#inFlight > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    } finally {
      clearTimeout(timer);
      this.#signal?.removeEventListener("abort", this.#onAbort);
    }
    const failed = this.#failed;
    await this.#worker.terminate();
    await this.#appended;
    const stats: RecordPrefetchStats = { offered: this.#offered, answered: this.#answered, entries: this.#entries, failed };
    try {
      // A failed append may have left part of a line: then nothing written is used.
      if (this.#appendFailed) throw new ScratchFileError(`could not write the scratch file ${displayText(this.#spool.path)}`);
      await this.#spool.seal();
    } catch {
      await this.#spool.remove();
      return new PrefetchedEntries(null, { ...stats, entries: 0, failed: failed ?? "ScratchFileError" });
    }
    // Entries written before the worker failed stay good: each was whole when it was appended.
    return new PrefetchedEntries(this.#spool, stats);
  }

  /** Stops the worker and deletes the scratch file (on failure or abort). Never throws. */
  async remove(): Promise<void> {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#fail("Removed");
    await this.#worker.terminate().catch(() => undefined);
    await this.#spool.remove();
  }

  #post(): void {
    const items = this.#batch;
    this.#batch = [];
    this.#inFlight += items.length;
    this.#worker.postMessage(items);
  }

  #onReply(reply: PrefetchWorkerReply): void {
    if ("failed" in reply) {
      this.#fail(reply.failed);
      return;
    }
    this.#answered += reply.items;
    if (reply.lines.byteLength === 0 || this.#failed !== null) {
      this.#release(reply.items);
      return;
    }
    // The batch's records leave the window only once its lines are written, so answers waiting
    // on a slow disk are bounded by the window too.
    const { lines, entries, items } = reply;
    this.#appended = this.#appended
      .then(() => this.#spool.append(lines))
      .then(
        () => {
          this.#entries += entries;
        },
        (error: unknown) => {
          this.#appendFailed = true;
          this.#fail(error instanceof Error ? error.constructor.name : "Error");
        },
      )
      .finally(() => this.#release(items));
  }

  /** `items` records have left the window (answered, and their lines written). */
  #release(items: number): void {
    this.#inFlight -= items;
    if (this.#inFlight < MAX_IN_FLIGHT) this.#wake();
  }

  #fail(name: string): void {
    this.#failed ??= name;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** One line of the scratch file, read back. */
interface PrefetchedLine {
  readonly head: PrefetchedHead;
  readonly json: string;
}

function isHead(value: unknown): value is PrefetchedHead {
  if (typeof value !== "object" || value === null) return false;
  const head = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(head.identity) &&
    Number.isSafeInteger(head.index) &&
    Number.isSafeInteger(head.segments) &&
    typeof head.facts === "object" &&
    head.facts !== null
  );
}

/** The prefetched entries, taken by the second pass in input order. */
export class PrefetchedEntries {
  readonly #spool: ScratchFile | null;
  readonly #lines: AsyncGenerator<PrefetchedLine> | null;
  #next: PrefetchedLine | null | undefined = undefined;
  /** What the prefetch did. */
  readonly stats: RecordPrefetchStats;

  /** Entries from a sealed scratch file of the prefetch, or none (`spool` null). */
  constructor(spool: ScratchFile | null, stats: RecordPrefetchStats) {
    this.#spool = spool;
    this.#lines = spool === null ? null : readLines(spool);
    this.stats = stats;
  }

  /** The entry prefetched for record `index` under the identity with row id `identity`, or null; asked in ascending order. */
  async take(index: number, identity: number): Promise<PrefetchedEntry | null> {
    if (this.#lines === null) return null;
    let found: PrefetchedEntry | null = null;
    for (;;) {
      const line: PrefetchedLine | null = this.#next === undefined ? ((await this.#lines.next()).value ?? null) : this.#next;
      this.#next = line;
      if (line === null || line.head.index > index) return found;
      this.#next = undefined;
      if (line.head.index === index && line.head.identity === identity) {
        found = { json: line.json, segments: line.head.segments, facts: line.head.facts };
      }
    }
  }

  /** Deletes the scratch file. Never throws. */
  async remove(): Promise<void> {
    await this.#lines?.return(undefined).catch(() => undefined);
    await this.#spool?.remove();
  }
}

async function* readLines(spool: ScratchFile): AsyncGenerator<PrefetchedLine> {
  for await (const { bytes, start, end } of scratchLines(spool, "the record prefetch's scratch file")) {
    const tab = bytes.indexOf(0x09, start);
    if (tab === -1 || tab > end) throw new ScratchFileError(`the record prefetch's scratch file ${displayText(spool.path)} holds a malformed line`);
    const head: unknown = JSON.parse(bytes.toString("utf8", start, tab));
    if (!isHead(head)) throw new ScratchFileError(`the record prefetch's scratch file ${displayText(spool.path)} holds a malformed line`);
    // Copied out (the line's buffer is reused), as a string on V8's heap; latin1 when that is the same text.
    const json = isAscii(bytes.subarray(tab + 1, end)) ? bytes.toString("latin1", tab + 1, end) : bytes.toString("utf8", tab + 1, end);
    yield { head, json };
  }
}
