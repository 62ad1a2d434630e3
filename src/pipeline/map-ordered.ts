// Bounded-concurrency map that keeps input order (`screen` and `ingest` run it): results[i] always
// belongs to items[i], whichever call finishes first, so output documents are identical for any
// concurrency. An abort rejects at once: a canary call in flight may take minutes to time out, and
// an interrupted run must not wait for it.

/** Options of `mapOrderedStream`. */
export interface MapOrderedStreamOptions {
  readonly concurrency: number;
  /**
   * Most items taken from the source and not yet handed to `sink` (running, or finished and
   * waiting for an earlier one). Default: twice the concurrency. It bounds the reorder buffer:
   * one slow item lets the others run ahead by at most this many.
   */
  readonly window?: number;
  readonly signal?: AbortSignal;
  /** Called after each item is handed to the sink, with the number done so far. */
  readonly onProgress?: (done: number) => void;
}

/**
 * Maps a stream with at most `concurrency` calls in flight, handing each result to `sink` in input
 * order (awaited, one at a time) and holding at most `window` items (memory is bounded by it, not
 * by the stream). Rejects with the first error of the source, a worker or the sink, or the abort
 * reason; no call starts after that. Resolves with the number of items once the last is handed over.
 */
export async function mapOrderedStream<T, R>(
  source: AsyncIterable<T>,
  worker: (item: T, index: number) => Promise<R>,
  sink: (result: R, index: number) => Promise<void>,
  options: MapOrderedStreamOptions,
): Promise<number> {
  const { concurrency, signal, onProgress } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError("concurrency must be a positive integer");
  const window = options.window ?? concurrency * 2;
  if (!Number.isSafeInteger(window) || window < concurrency) throw new RangeError("window must be an integer no smaller than concurrency");

  const iterator = source[Symbol.asyncIterator]();
  const results = new Map<number, R>();
  let taken = 0;
  let handed = 0;
  let running = 0;
  let exhausted = false;
  let pulling = false;
  let draining = false;
  let failure: { error: unknown } | null = null;
  let settle!: { resolve: (n: number) => void; reject: (error: unknown) => void };
  const done = new Promise<number>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const fail = (error: unknown): void => {
    if (failure !== null) return;
    failure = { error };
    settle.reject(error);
    // Closes the source (a file stream, a spool reader) so nothing more is read.
    void iterator.return?.().catch(() => undefined);
  };
  const onAbort = (): void => fail(signal?.reason);

  // Hands finished results over in order; one drain at a time so the sink sees them in order.
  const drain = async (): Promise<void> => {
    if (draining) return;
    draining = true;
    try {
      while (failure === null && results.has(handed)) {
        const result = results.get(handed) as R;
        results.delete(handed);
        await sink(result, handed);
        handed++;
        onProgress?.(handed);
      }
    } catch (error) {
      fail(error);
    } finally {
      draining = false;
    }
    if (failure !== null) return;
    if (exhausted && running === 0 && handed === taken) settle.resolve(taken);
    else void pump();
  };

  // Takes items while a lane is free and the window has room.
  const pump = async (): Promise<void> => {
    if (pulling) return;
    pulling = true;
    try {
      while (failure === null && !exhausted && running < concurrency && taken - handed < window) {
        const next = await iterator.next();
        if (failure !== null) return;
        if (next.done === true) {
          exhausted = true;
          break;
        }
        const index = taken++;
        running++;
        worker(next.value, index).then(
          (result) => {
            running--;
            results.set(index, result);
            void drain();
          },
          (error: unknown) => {
            running--;
            fail(error);
          },
        );
      }
    } catch (error) {
      fail(error);
    } finally {
      pulling = false;
    }
    if (failure === null && exhausted && running === 0 && handed === taken && !draining) settle.resolve(taken);
  };

  if (signal?.aborted) fail(signal.reason);
  else {
    signal?.addEventListener("abort", onAbort, { once: true });
    void pump();
  }
  try {
    return await done;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}
