// A scratch file: text or bytes appended in order, buffered, read back in chunks and removed,
// for runs too large to hold until they are framed and published. It sits in the directory of
// the file it prepares (a full disk fails the run, never a target), hidden and ending in
// `.spool` (a leftover is never mistaken for a target), created exclusively 0600 and never
// fsynced: it is not a result.
import { randomBytes } from "node:crypto";
import { unlinkSync } from "node:fs";
import { type FileHandle, open, readdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorCode, LittleCanaryError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { writeAll } from "./fs.js";

/** The file-name ending of every scratch file. */
export const SCRATCH_SUFFIX = ".spool";

/** Bytes gathered before one write(2); also the read-back chunk size. */
const FLUSH_BYTES = 1 << 20;

/** A scratch file could not be created, written, read or removed (code `io`). */
export class ScratchFileError extends LittleCanaryError {
  override readonly name = "ScratchFileError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("io", message, options);
  }
}

/** `operation` on the scratch file at `path`, its failure a ScratchFileError saying what could not be done (`verb`) and why. */
async function scratchIo<T>(path: string, verb: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const reason = errorCode(error) ?? (error instanceof Error ? error.message : "unknown error");
    throw new ScratchFileError(`could not ${verb} the scratch file ${displayText(path)} (${reason})`, { cause: error });
  }
}

// Scratch files not yet removed. A process that ends through process.exit (a second Ctrl-C
// forcing the exit while a run is still unwinding) runs no async cleanup, so they are unlinked
// synchronously on the way out; only a process killed outright (SIGKILL) leaves one behind.
const live = new Set<string>();
let sweepInstalled = false;
function track(path: string): void {
  live.add(path);
  if (sweepInstalled) return;
  sweepInstalled = true;
  process.once("exit", () => {
    for (const left of live) {
      try {
        unlinkSync(left);
      } catch {
        // Already gone, or not ours to remove any more: nothing else can be done at exit.
      }
    }
  });
}

/** The longest label a scratch file takes (`manifest-records`); scratchPathFor refuses a longer one. */
const MAX_SCRATCH_LABEL = 16;

/**
 * Bytes the name of a scratch file adds to its target's name at most: `.<name>.<12 hex>.<label>.spool`,
 * and SQLite's `-journal` after it for one that is a database (the id index).
 */
export const SCRATCH_NAME_EXTRA = ".".length + ".".length + 12 + ".".length + MAX_SCRATCH_LABEL + SCRATCH_SUFFIX.length + "-journal".length;

/** The path of a scratch file for `target`: `.<name>.<random>.<label>.spool` beside it. */
export function scratchPathFor(target: string, label: string): string {
  if (label.length > MAX_SCRATCH_LABEL) throw new RangeError(`a scratch file label has at most ${MAX_SCRATCH_LABEL} characters`);
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.${label}${SCRATCH_SUFFIX}`);
}

/**
 * Text or bytes appended in order to a file beside `target`, a megabyte written at a time (awaited:
 * a slow disk slows the producer, memory does not fill); `remove` is safe at any point, twice too.
 */
export class ScratchFile {
  // One write buffer for the file's life: appends are copied into it (no allocation per
  // append), and it is written out, awaited, before it is filled again.
  private buffer: Buffer | null = null;
  private pendingBytes = 0;
  private tail: Promise<void> = Promise.resolve();
  private written = 0;
  private sealed = false;
  private removed = false;

  private constructor(
    /** Where the file is. */
    readonly path: string,
    private handle: FileHandle | null,
  ) {}

  /** Creates an empty scratch file beside `target` (exclusively, mode 0600). */
  static async create(target: string, label: string): Promise<ScratchFile> {
    const path = scratchPathFor(target, label);
    const file = new ScratchFile(path, await scratchIo(path, "create", () => open(path, "wx", 0o600)));
    track(path);
    return file;
  }

  /** Bytes appended so far (flushed or not). */
  get size(): number {
    return this.written + this.pendingBytes;
  }

  /** Appends `data`: a string as UTF-8, bytes as they are (copied, so the caller may reuse its buffer). */
  append(data: string | Uint8Array): Promise<void> {
    // Appends run one after another even if a caller does not wait, so none writes into the
    // buffer while it is being written out.
    this.tail = this.tail.then(() => this.appendNow(data));
    return this.tail;
  }

  private async appendNow(data: string | Uint8Array): Promise<void> {
    if (this.sealed) throw new ScratchFileError(`scratch file ${displayText(this.path)} is already sealed`);
    const size = typeof data === "string" ? Buffer.byteLength(data, "utf8") : data.byteLength;
    if (this.pendingBytes + size > FLUSH_BYTES) await this.flush();
    if (size > FLUSH_BYTES) {
      // Larger than the buffer: written on its own.
      await this.writeOut(typeof data === "string" ? Buffer.from(data, "utf8") : data);
      return;
    }
    this.buffer ??= Buffer.allocUnsafe(FLUSH_BYTES);
    if (typeof data === "string") this.buffer.write(data, this.pendingBytes, "utf8");
    else this.buffer.set(data, this.pendingBytes);
    this.pendingBytes += size;
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0 || this.buffer === null) return;
    const size = this.pendingBytes;
    this.pendingBytes = 0;
    await this.writeOut(this.buffer.subarray(0, size));
  }

  private async writeOut(data: Uint8Array): Promise<void> {
    const handle = this.handle;
    if (handle === null) return;
    await scratchIo(this.path, "write", () => writeAll(handle, data));
    this.written += data.byteLength;
  }

  /** Flushes and closes the file; no more appends. */
  async seal(): Promise<void> {
    if (this.sealed) return;
    await this.tail;
    await this.flush();
    this.sealed = true;
    const handle = this.handle;
    this.handle = null;
    await scratchIo(this.path, "close", async () => handle?.close());
  }

  /** The file's bytes, in chunks of up to a megabyte (seal first). */
  async *chunks(options: { readonly reuseBuffer?: boolean } = {}): AsyncGenerator<Buffer> {
    if (!this.sealed) throw new ScratchFileError(`scratch file ${displayText(this.path)} must be sealed before it is read`);
    const handle = await scratchIo(this.path, "read", () => open(this.path, "r"));
    try {
      let position = 0;
      // With `reuseBuffer`, one buffer serves every chunk (a chunk is valid only until the next
      // one is asked for): a copy-out of a large spool then allocates one megabyte, not one per chunk.
      const shared = options.reuseBuffer === true ? Buffer.allocUnsafe(Math.min(FLUSH_BYTES, Math.max(1, this.written))) : null;
      while (position < this.written) {
        const size = Math.min(FLUSH_BYTES, this.written - position);
        const buffer = shared === null ? Buffer.allocUnsafe(size) : shared.subarray(0, size);
        const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position);
        if (bytesRead === 0) throw new ScratchFileError(`scratch file ${displayText(this.path)} is shorter than what was written to it`);
        position += bytesRead;
        yield bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Closes and deletes the file; a file already gone is fine. Never throws. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    this.buffer = null;
    this.pendingBytes = 0;
    const handle = this.handle;
    this.handle = null;
    this.sealed = true;
    await handle?.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
    live.delete(this.path);
  }
}

/**
 * Deletes the scratch files a killed run for `target` left (`.<name>.<12 hex>.<label>.spool` and
 * SQLite's `-journal`, `-wal`, `-shm` beside one) and returns their paths. Only while holding the
 * lock on `target`: then no live run uses them.
 */
export async function removeLeftoverScratch(target: string): Promise<string[]> {
  const prefix = `.${basename(target)}.`;
  const pattern = /^[0-9a-f]{12}\.[a-z-]+\.spool(-journal|-wal|-shm)?$/;
  let names: string[];
  try {
    names = await readdir(dirname(target));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !pattern.test(name.slice(prefix.length))) continue;
    const path = join(dirname(target), name);
    try {
      await unlink(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove: the next run tries again.
    }
  }
  return removed;
}

/** One line of a scratch file: `bytes[start, end)`, without its line break; valid until the next line is asked for. */
export interface ScratchLine {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

/**
 * The line-break-terminated lines of `spool`, in order, through one reused buffer: a run reads
 * hundreds of megabytes of them, and a fresh buffer per chunk (memory outside V8's heap) drew a
 * full collection every few dozen milliseconds. So a line is a view valid only until the next is
 * asked for; whoever keeps part of it copies it. Throws ScratchFileError, naming `what`, when the
 * file does not end with a line break.
 */
export async function* scratchLines(spool: ScratchFile, what: string): AsyncGenerator<ScratchLine> {
  // The part of a line that began in an earlier chunk (a copy: that chunk's buffer is reused).
  let carry: Buffer | null = null;
  for await (const chunk of spool.chunks({ reuseBuffer: true })) {
    let start = 0;
    if (carry !== null) {
      const newline = chunk.indexOf(0x0a);
      if (newline === -1) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const line = Buffer.concat([carry, chunk.subarray(0, newline)]);
      carry = null;
      yield { bytes: line, start: 0, end: line.byteLength };
      start = newline + 1;
    }
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      yield { bytes: chunk, start, end: newline };
      start = newline + 1;
    }
    carry = start < chunk.byteLength ? Buffer.from(chunk.subarray(start)) : null;
  }
  if (carry !== null) throw new ScratchFileError(`${what} ${displayText(spool.path)} ends inside a line`);
}
