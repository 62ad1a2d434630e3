// `screenFile`: a JSONL batch from a file (or stream) screened as one library call, the work
// behind `little-canary screen`. It validates the reader limits, reads strictly (stopping at the
// first record-level problem, because the batch is refused on any), screens the items and
// returns the batch document with the circuit breaker's trip. A refused input throws
// InputRefusedError (`input_refused`); nothing is printed or written here.
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { LittleCanaryError } from "../core/errors.js";
import { DEFAULT_READER_LIMITS, validateReaderLimits, type ReaderLimits } from "../documents/reader-limits.js";
import { readRecords } from "../jsonl/read.js";
import { refusalInInput } from "../jsonl/refusal-text.js";
import { fromFile, fromNodeStream } from "../jsonl/sources.js";
import type { BatchDocument } from "../documents/schemas.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { CanaryCircuitBreaker, DEFAULT_MAX_CANARY_FAILURES, type BreakerTrip } from "../schedule/circuit-breaker.js";
import { itemsFromRecords } from "./admit.js";
import { screenItems } from "./screen-batch.js";

/** The batch input was refused (a reader limit, a malformed record) or the run was interrupted. */
export class InputRefusedError extends LittleCanaryError {
  override readonly name = "InputRefusedError";
  constructor(message: string) {
    super("input_refused", message);
  }
}

export interface ScreenFileOptions {
  /** The JSONL input: a path (resolved against `cwd`) or a stream. */
  readonly input: string | Readable;
  /**
   * The pipeline, or a function that builds it once the limits are valid (so a bad limit is
   * reported before a bad pipeline setting, as the CLI does).
   */
  readonly pipeline: Pick<SecurityPipeline, "check"> | (() => Pick<SecurityPipeline, "check">);
  /** Reader limits over the defaults (most items, bytes of one text, bytes of all texts…). */
  readonly limits?: Partial<ReaderLimits>;
  /** Items checked at once (default 1); the document is the same for any value. */
  readonly concurrency?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5; 0 never). */
  readonly maxCanaryFailures?: number;
  /** Aborting stops the screening and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Called once the settings are valid, just before the input is read. */
  readonly beforeRead?: () => void | Promise<void>;
  /** Called once the input is read and admitted, before the first check. */
  readonly afterRead?: (itemCount: number) => void | Promise<void>;
  /** Called after each item, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Directory a relative input path is resolved against (default: the process's). */
  readonly cwd?: string;
}

export interface ScreenFileResult {
  /** The little-canary-batch/v1 document (no item text: hashes and lengths only). */
  readonly document: BatchDocument;
  /** Set when the circuit breaker opened part-way: the rest of the items were not sent. */
  readonly circuitOpen: BreakerTrip | null;
}

/** Reads, admits and screens a JSONL batch; throws InputRefusedError when the input is refused. */
export async function screenFile(options: ScreenFileOptions): Promise<ScreenFileResult> {
  const limits: ReaderLimits = validateReaderLimits({ ...DEFAULT_READER_LIMITS, ...(options.limits ?? {}) });
  const pipeline = typeof options.pipeline === "function" ? options.pipeline() : options.pipeline;
  await options.beforeRead?.();
  const inputPath = typeof options.input === "string" ? resolve(options.cwd ?? process.cwd(), options.input) : null;
  const source = inputPath !== null ? fromFile(inputPath) : fromNodeStream(options.input as Readable);
  const outcome = await readRecords(source, { kind: "screen", limits, stopOnRecordProblem: true });
  if (!outcome.ok) throw new InputRefusedError(refusalInInput(outcome.refusal.message, inputPath));
  const items = itemsFromRecords(outcome.records);
  await options.afterRead?.(items.length);
  const breaker = new CanaryCircuitBreaker(options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES);
  const document = await screenItems(items, pipeline, {
    concurrency: options.concurrency ?? 1,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    breaker,
  });
  return { document, circuitOpen: breaker.trip };
}
