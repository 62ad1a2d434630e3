// Verify's worker thread (pair-worker.ts) is handed the records it checks by the thread that reads
// the files, instead of reading, hashing and splitting both files again itself: on two cores that
// second reading cost the worker about a quarter of its time. The reading thread decides who
// checks each block of records as it meets it (pair-share.ts): the worker takes a new block only
// while few of the bytes handed to it wait unread, so the reading thread never waits for the
// worker and neither can stall the other, whatever order the two files bring the blocks in. The
// worker's elements are copied, with their positions, into batches sent at the end of each chunk
// read, and the array's start and end and the file's end follow in order; the worker reads them
// with the reader's own element check (core/canonical-json-file.ts), so it sees exactly the bytes
// the reading thread hashed. Handed more than it takes (a block of huge records), the worker is
// stopped, and the reading thread checks what the worker was to check itself (stream-pair.ts).
import type { DeferredElement, FrameEvent } from "../core/canonical-json-file.js";
import type { StrictStreamEvent } from "../core/parse-line.js";
import type { StrictFileEnd } from "../core/strict-json-stream.js";

/** The documents a worker is handed. */
export type FedDocument = "manifest" | "export";

/** One message from the reading thread to the worker, after its start data. */
export type FeedMessage =
  | {
      readonly kind: "elements";
      readonly doc: FedDocument;
      /** The elements' bytes one after another (transferred, not copied again). */
      readonly buffer: ArrayBuffer;
      readonly positions: readonly number[];
      /** Where each element's bytes end in `buffer`. */
      readonly ends: readonly number[];
    }
  | { readonly kind: "frame"; readonly doc: FedDocument; readonly event: FrameEvent };

/** The worker's answer as it reads: it took one batch, whose buffer it gives back. */
export interface FeedTaken {
  readonly kind: "taken";
  readonly buffer: ArrayBuffer;
}

/** How much a worker may be handed ahead of what it took. */
export interface FeedLimits {
  /** A block met for the first time goes to the worker only while fewer bytes than this wait for it. */
  readonly window: number;
  /** More than this waiting (the rest of blocks already its own) stops the worker. */
  readonly most: number;
}

/**
 * About 40 ms of the worker's checking at the window: enough that it never runs dry between
 * batches, little enough that both threads finish near the same time; the most keeps the
 * worker's queue (and the peak RSS, docs/ingest.md "Verify memory") bounded.
 */
export const FEED_LIMITS: FeedLimits = { window: 8 << 20, most: 64 << 20 };

/**
 * Room of a batch: a chunk read's worth, or one element that is larger. Buffers of this size come
 * back from the worker and are used again: memory never touched costs a page fault a page, which
 * made copying into new buffers cost as much as hashing the file.
 */
const BATCH_BYTES = 1 << 18;

/** Where a batch is posted: the worker, or a stand-in in tests. */
export interface FeedPort {
  postMessage(message: FeedMessage, transfer: ArrayBuffer[]): void;
}

/** The elements of one document gathered for the next batch. */
interface Batch {
  buffer: Buffer;
  used: number;
  positions: number[];
  ends: number[];
}

/**
 * The reading thread's side: hands the worker the elements of its blocks and the frames, and
 * decides whether the worker takes a new block. `onStop` is called once when the worker is
 * stopped for having too much waiting (or by `stop`): nothing more is handed on after.
 */
export class ShareFeed {
  /** Bytes of the buffers handed on and not yet given back. */
  #waiting = 0;
  #active = true;
  readonly #batches: Record<FedDocument, Batch | null> = { manifest: null, export: null };
  /** Buffers given back, for the next batches. */
  readonly #spare: Buffer[] = [];

  constructor(
    private readonly port: FeedPort,
    /** The worker's part of the pair (pair-share.ts). */
    readonly part: number,
    private readonly limits: FeedLimits,
    private readonly onStop: () => void,
  ) {}

  /** Whether the worker is still handed its blocks. */
  get active(): boolean {
    return this.#active;
  }

  /** Whether a block met for the first time goes to the worker. */
  takesBlock(): boolean {
    return this.#active && this.#waiting < this.limits.window;
  }

  /** Hands on an element of the worker's (its bytes are copied: the reader reuses its buffer). */
  element(doc: FedDocument, position: number, bytes: Buffer): void {
    if (!this.#active) return;
    if (this.#waiting + bytes.byteLength > this.limits.most) {
      this.stop();
      return;
    }
    let batch = this.#batches[doc];
    if (batch !== null && batch.used + bytes.byteLength > batch.buffer.byteLength) {
      this.flush(doc);
      batch = null;
    }
    if (batch === null) {
      // Memory of its own, not the pool's: the whole buffer is transferred.
      const buffer = bytes.byteLength <= BATCH_BYTES ? (this.#spare.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES)) : Buffer.allocUnsafeSlow(bytes.byteLength);
      batch = { buffer, used: 0, positions: [], ends: [] };
      this.#batches[doc] = batch;
    }
    bytes.copy(batch.buffer, batch.used);
    batch.used += bytes.byteLength;
    batch.positions.push(position);
    batch.ends.push(batch.used);
  }

  /** Hands on the array's start or end or the file's end, after the elements before it. */
  frame(doc: FedDocument, event: FrameEvent): void {
    if (!this.#active) return;
    this.flush(doc);
    this.port.postMessage({ kind: "frame", doc, event }, []);
  }

  /** Sends what was gathered of `doc` (at the end of each chunk read). */
  flush(doc: FedDocument): void {
    const batch = this.#batches[doc];
    this.#batches[doc] = null;
    if (batch === null || !this.#active) return;
    const buffer = batch.buffer.buffer as ArrayBuffer;
    this.#waiting += buffer.byteLength;
    this.port.postMessage({ kind: "elements", doc, buffer, positions: batch.positions, ends: batch.ends }, [buffer]);
  }

  /** The worker took a batch and gave its buffer back. */
  taken(buffer: ArrayBuffer): void {
    this.#waiting -= buffer.byteLength;
    if (this.#active && buffer.byteLength === BATCH_BYTES) this.#spare.push(Buffer.from(buffer));
  }

  /** Hands nothing more on, and says so once. */
  stop(): void {
    if (!this.#active) return;
    this.#active = false;
    this.#batches.manifest = null;
    this.#batches.export = null;
    this.#spare.length = 0;
    this.onStop();
  }
}

/**
 * The worker's side: takes the messages as they come and gives each document's events as
 * readCanonicalJsonFile would have (elements deferred), then its end. `onTaken` is given each
 * batch's buffer once its elements were all given and the next was asked for: as with the
 * reader's own buffer, an element's bytes are read before the walk asks for more.
 */
export class FedDocuments {
  readonly #queues: Record<FedDocument, FeedMessage[]> = { manifest: [], export: [] };
  readonly #wake: Record<FedDocument, (() => void) | null> = { manifest: null, export: null };

  constructor(private readonly onTaken: (buffer: ArrayBuffer) => void) {}

  /** A message from the reading thread. */
  receive(message: FeedMessage): void {
    this.#queues[message.doc].push(message);
    const wake = this.#wake[message.doc];
    this.#wake[message.doc] = null;
    wake?.();
  }

  /** The next message of `doc`, once it came. */
  async #next(doc: FedDocument): Promise<FeedMessage> {
    const queue = this.#queues[doc];
    while (queue.length === 0) await new Promise<void>((resolve) => (this.#wake[doc] = resolve));
    return queue.shift() as FeedMessage;
  }

  /** `doc`'s events, each element read by `parseElement` when its `parse` is called. */
  async *events(
    doc: FedDocument,
    parseElement: (index: number, bytes: Buffer) => StrictStreamEvent,
  ): AsyncGenerator<StrictStreamEvent | DeferredElement | StrictFileEnd, void, void> {
    for (;;) {
      const message = await this.#next(doc);
      if (message.kind === "frame") {
        yield message.event;
        if (message.event.type === "end") return;
        continue;
      }
      const all = Buffer.from(message.buffer);
      let start = 0;
      for (const [i, end] of message.ends.entries()) {
        const index = message.positions[i] as number;
        const bytes = all.subarray(start, end);
        start = end;
        yield { type: "deferred", index, bytes, parse: () => parseElement(index, bytes) };
      }
      this.onTaken(message.buffer);
    }
  }
}
