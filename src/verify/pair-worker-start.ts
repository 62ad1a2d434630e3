// Verify's worker thread (pair-worker.ts), started before it is needed. A worker takes about as
// long to start as the command that needs it (a new V8 isolate compiles Node's own modules and
// then the verifier's, about 0.3 s of CPU here), and until then one core checks every record. The
// CLI starts the worker as its first step, on the second core, while this thread loads the
// verifier; the verifier then hands it its share (`takeStartedPairWorker`). This module imports
// nothing of the verifier, so starting the worker costs this thread nothing to load.
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Pairs of at least this many bytes are checked on two threads. Below it a second thread does not
 * pay: it starts, loads and compiles the checks anew (about 0.3 s of CPU), the main thread copies
 * its records to it, and on two cores both threads' collectors and compilers compete with them.
 * Measured on the 2-core machine when the worker still read both files itself (docs/scale.md,
 * "Verify speed: two threads"): at 9 MB slower than one thread, at 60 MB about 10 % faster for a
 * third more CPU, at 300 MB about 40 % faster for 5 % more.
 */
const TWO_THREADS_MIN_BYTES = 128 << 20;

/** The compiled worker script (absent under a TypeScript test runner, which cannot start it). */
export const PAIR_WORKER_URL = new URL("./pair-worker.js", import.meta.url);

/** Whether a pair of `bytes` is checked on two threads: large enough, a second core, the script present. */
export function twoThreadsFor(bytes: number): boolean {
  return bytes >= TWO_THREADS_MIN_BYTES && availableParallelism() >= 2 && existsSync(fileURLToPath(PAIR_WORKER_URL));
}

/** The worker started ahead of need and its script, until the verifier takes it or it is released. */
let started: { readonly url: string; readonly worker: Worker } | null = null;

/** Options of startPairWorkerAhead (tests start a bundled script, with a threshold of their own). */
export interface StartAheadOptions {
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  readonly url?: URL;
  readonly minBytes?: number;
}

/**
 * Starts the pair worker now when the files at `paths` (null or undefined: none) are a pair
 * checked on two threads; it loads the verifier and waits for its share. The process does not
 * wait for a worker nobody took; `releaseStartedPairWorker` ends it. Does nothing when one is
 * waiting already.
 */
export function startPairWorkerAhead(paths: ReadonlyArray<string | null | undefined>, options: StartAheadOptions = {}): void {
  const url = options.url ?? PAIR_WORKER_URL;
  if (started !== null) return;
  let bytes = 0;
  for (const path of paths) {
    if (path == null) continue;
    try {
      bytes += statSync(resolve(options.cwd ?? process.cwd(), path)).size;
    } catch {
      // An unreadable file is reported by the verification itself.
    }
  }
  const wanted = options.url === undefined ? twoThreadsFor(bytes) : bytes >= (options.minBytes ?? TWO_THREADS_MIN_BYTES);
  if (!wanted) return;
  let worker: Worker;
  try {
    worker = new Worker(url, { workerData: null, resourceLimits: PAIR_WORKER_LIMITS });
  } catch {
    return;
  }
  const entry = { url: url.href, worker };
  // A worker that fails or ends before it is taken is not taken: the verifier starts another.
  worker.on("error", () => undefined);
  worker.once("exit", () => {
    if (started === entry) started = null;
  });
  worker.unref();
  started = entry;
}

/**
 * A young generation of 32 MB, not V8's default for a worker's heap: the worker's share of the peak
 * RSS (docs/ingest.md, "Verify memory"). At 16 MB the worker collected three times as often as
 * the main thread and finished last, the main thread idle meanwhile.
 */
export const PAIR_WORKER_LIMITS = { maxYoungGenerationSizeMb: 32 } as const;

/**
 * The worker started ahead for the script at `url`, now the caller's (it keeps the process alive
 * again; its start data is the caller's first message), or null when none is waiting.
 */
export function takeStartedPairWorker(url: URL = PAIR_WORKER_URL): Worker | null {
  if (started === null || started.url !== url.href) return null;
  const { worker } = started;
  started = null;
  worker.ref();
  return worker;
}

/** Ends a worker started ahead that nobody took (the run ended before, or read the pair another way). */
export async function releaseStartedPairWorker(): Promise<void> {
  const worker = started?.worker;
  started = null;
  await worker?.terminate();
}
