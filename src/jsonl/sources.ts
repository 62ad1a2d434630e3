// Byte sources for the reader: a file, or a Node stream (stdin). Never decoded text: a stream with
// an encoding set is a caller error, since decoding would hide invalid UTF-8 the reader must refuse.

import { closeSync, constants, createReadStream, fstatSync, open, openSync, statSync } from "node:fs";
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";

export const READ_CHUNK_BYTES = 65536;

/** Chunks of a readable byte stream such as `process.stdin`. */
export async function* fromNodeStream(stream: NodeJS.ReadableStream): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) {
    if (typeof chunk === "string") {
      throw new UsageError("the input stream must yield bytes; do not set an encoding on it");
    }
    yield chunk;
  }
}

/**
 * Chunks of a file, read READ_CHUNK_BYTES at a time. Read errors become LittleCanaryError("io").
 * `signal`: an abort ends the reading even when the file is a named pipe that nobody writes to
 * (see releaseFifoOpen), so the caller sees the input end and can stop.
 */
export async function* fromFile(path: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  let stream: Readable | null = null;
  let regular: { readonly fd: number; readonly size: number } | null = null;
  let opening = true;
  let retry: NodeJS.Timeout | null = null;
  const abandon = (): void => {
    if (!opening) {
      stream?.destroy();
      return;
    }
    // The open may still wait for a free pool thread, and a release made before it starts is
    // lost: release again until it has returned.
    releaseFifoOpen(path);
    retry = setInterval(() => releaseFifoOpen(path), FIFO_RELEASE_RETRY_MS);
  };
  // Aborted already: nothing is opened (a pipe's open could not be released before it starts).
  if (signal?.aborted) return;
  signal?.addEventListener("abort", abandon, { once: true });
  try {
    const fd = await openForReading(path).finally(() => {
      opening = false;
      if (retry !== null) clearInterval(retry);
    });
    // A pipe is read as a socket (epoll, not a pool thread blocked in read), so destroying it
    // ends a read that waits for a writer who never writes; a file is read as usual.
    try {
      const info = fstatSync(fd);
      // A regular file's descriptor stays open past the last chunk (its stream is destroyed, and
      // the descriptor closed with it, only in `finally`), so its size can be asked again.
      if (info.isFile()) regular = { fd, size: info.size };
      stream = info.isFIFO()
        ? new Socket({ fd, readable: true, writable: false })
        : createReadStream(path, { fd, highWaterMark: READ_CHUNK_BYTES, autoClose: regular === null });
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (signal?.aborted) stream.destroy();
    // A regular file holds the bytes it held when opened, or the input changed while it was read:
    // one still being written would be read to wherever its writer had got (half a line reads as
    // malformed JSON, a whole one as a shorter input), and one that grows for ever, for ever.
    let read = 0;
    for await (const chunk of regular === null ? stream : stream.iterator({ destroyOnReturn: false })) {
      read += (chunk as Buffer).byteLength;
      if (regular !== null && read > regular.size) throw new InputChangedError(path, regular.size);
      yield chunk as Buffer;
    }
    if (regular !== null && (read !== regular.size || fstatSync(regular.fd).size !== regular.size)) throw new InputChangedError(path, regular.size);
  } catch (error) {
    if (error instanceof InputChangedError) throw error;
    const reason = typeof (error as { code?: unknown })?.code === "string" ? ` (${(error as { code: string }).code})` : "";
    throw new LittleCanaryError("io", `could not read input file ${displayText(path)}${reason}`, { cause: error });
  } finally {
    signal?.removeEventListener("abort", abandon);
    if (retry !== null) clearInterval(retry);
    stream?.destroy();
  }
}

/** A regular input file whose bytes did not stay what they were when it was opened. */
class InputChangedError extends LittleCanaryError {
  override readonly name = "InputChangedError";
  constructor(path: string, size: number) {
    super(
      "input_refused",
      `the input ${displayText(path)} changed while it was read: it held ${size} bytes when opened, and something wrote to it (or cut it short) while it was read, or it is not an ordinary file (such as one under /proc); nothing written`,
    );
  }
}

/** How often a pending open of a named pipe is released again after an abort. */
const FIFO_RELEASE_RETRY_MS = 50;

/** The descriptor of `path` opened for reading (closed by the stream that takes it). */
function openForReading(path: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, "r", (error, fd) => (error ? reject(error) : resolve(fd))));
}

/**
 * Opening a named pipe for reading waits, on a thread of libuv's pool, until some process opens
 * it for writing; nothing can cancel that wait, and while it lasts the process cannot exit (not
 * even by process.exit, which joins those threads). So an interrupted run whose input is a pipe
 * that nobody opened for writing would hang, holding its lock. Opening the pipe for writing without blocking,
 * and closing it at once, ends that wait: the reader then sees the end of an empty input. Nothing
 * is written; a path that is not a named pipe (or no longer one) is left alone. (A path swapped
 * for something else between the stat and the open would be opened for writing without being
 * written or truncated; an input path is the caller's own.)
 */
function releaseFifoOpen(path: string): void {
  try {
    if (!statSync(path).isFIFO()) return;
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader is waiting (ENXIO), or the path changed: there is no open to release.
  }
}
