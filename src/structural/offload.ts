// StructuralOffload: a pipeline's structural checks, on worker threads while checks overlap.
//
// Why: an ingest keeps dozens of checks in flight, and the structural layer is the largest part
// of what its one JavaScript thread spends per check; a second core can run it while the main
// thread does HTTP, analysis and the manifest. A check that overlaps none runs in-process: a round
// trip to a thread would only add latency.
//
// Contract: `check` gives the same frozen FilterResult as the filter's own `check`, whichever
// thread ran it (each worker builds a StructuralFilter from this one's settings, filter-worker.ts,
// and the filter holds no state between texts). Workers start on the first overlapping check, only
// with a core to spare and the compiled worker script present (absent under a TypeScript test
// runner); until then, and while every worker holds MAX_QUEUED_PER_WORKER texts, texts are checked
// in-process. A worker that fails or exits stops the offload for good, its texts checked
// in-process (none lost, none answered twice). Only a worker with texts waiting keeps the process alive.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type FilterResult, filterResult, type StructuralFilter } from "./filter.js";
import type { FilterWorkerData, FilterWorkerReply } from "./filter-worker.js";
import type { StructuralMatch } from "./locate.js";

/**
 * Texts one worker may hold before the next is checked in-process: a few keep the worker busy
 * between the main thread's turns, more would only make checks wait behind a busy worker.
 */
const MAX_QUEUED_PER_WORKER = 16;
/** At most this many workers: the main thread and the canary need the other cores. */
const MAX_WORKERS = 2;

/** Options of StructuralOffload (tests point it at a bundled worker script). */
export interface StructuralOffloadOptions {
  /** The worker script; default the compiled filter-worker.js beside this module. */
  readonly workerUrl?: URL;
  /** Worker threads; default one per core beyond the first, at most MAX_WORKERS (0: never offload). */
  readonly threads?: number;
}

interface Lane {
  readonly worker: Worker;
  pending: number;
}

interface Waiting {
  readonly text: string;
  readonly lane: Lane;
  readonly resolve: (result: FilterResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Runs a StructuralFilter's checks in-process or on worker threads (see the module header). */
export class StructuralOffload {
  readonly #filter: StructuralFilter;
  readonly #url: URL;
  readonly #threads: number;
  #lanes: readonly Lane[] | null = null;
  #stopped = false;
  #nextId = 0;
  readonly #waiting = new Map<number, Waiting>();

  constructor(filter: StructuralFilter, options: StructuralOffloadOptions = {}) {
    this.#filter = filter;
    this.#url = options.workerUrl ?? new URL("./filter-worker.js", import.meta.url);
    this.#threads = options.threads ?? Math.max(0, Math.min(MAX_WORKERS, availableParallelism() - 1));
  }

  /** Whether workers are running (started and not stopped). */
  get offloading(): boolean {
    return this.#lanes !== null && !this.#stopped;
  }

  /** The filter's result for `text`; on a worker when `overlapping` (another check is in flight) and one is free. */
  check(text: string, overlapping: boolean): FilterResult | Promise<FilterResult> {
    const lane = overlapping ? this.#freeLane() : null;
    if (lane === null) return this.#filter.check(text);
    const id = this.#nextId++;
    if (lane.pending++ === 0) lane.worker.ref();
    lane.worker.postMessage([id, text]);
    return new Promise<FilterResult>((resolve, reject) => this.#waiting.set(id, { text, lane, resolve, reject }));
  }

  #freeLane(): Lane | null {
    if (this.#stopped) return null;
    const lanes = this.#lanes ?? this.#start();
    let best: Lane | null = null;
    for (const lane of lanes) if (best === null || lane.pending < best.pending) best = lane;
    return best !== null && best.pending < MAX_QUEUED_PER_WORKER ? best : null;
  }

  #start(): readonly Lane[] {
    const lanes: Lane[] = [];
    this.#lanes = lanes;
    if (this.#threads <= 0 || this.#url.protocol !== "file:" || !existsSync(fileURLToPath(this.#url))) {
      this.#stopped = true;
      return lanes;
    }
    const workerData: FilterWorkerData = {
      maxInputLength: this.#filter.maxInputLength,
      customPatterns: this.#filter.customPatternSummary.map((c) => ({ pattern: new RegExp(c.source, c.flags), reason: c.reason })),
    };
    try {
      for (let i = 0; i < this.#threads; i++) {
        const worker = new Worker(this.#url, { workerData });
        const lane: Lane = { worker, pending: 0 };
        worker.unref();
        worker.on("message", (reply: FilterWorkerReply) => this.#answer(reply));
        worker.on("error", () => this.#stop());
        worker.on("exit", () => this.#stop());
        lanes.push(lane);
      }
    } catch {
      this.#stop();
    }
    return lanes;
  }

  #answer([id, reasons, found]: FilterWorkerReply): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    if (--waiting.lane.pending === 0) waiting.lane.worker.unref();
    if (reasons === null) this.#checkHere(waiting);
    else waiting.resolve(filterResult(waiting.text, reasons, found as readonly StructuralMatch[]));
  }

  /** Checks a text in-process: the worker could not (its check threw, or it stopped). */
  #checkHere(waiting: Waiting): void {
    try {
      waiting.resolve(this.#filter.check(waiting.text));
    } catch (error) {
      waiting.reject(error);
    }
  }

  /** Stops every worker for good; the texts they held are checked in-process. */
  #stop(): void {
    if (this.#stopped && this.#waiting.size === 0) return;
    this.#stopped = true;
    for (const lane of this.#lanes ?? []) {
      lane.pending = 0;
      lane.worker.removeAllListeners("message");
      lane.worker.terminate().catch(() => undefined);
    }
    const held = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const waiting of held) this.#checkHere(waiting);
  }
}
