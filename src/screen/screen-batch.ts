// screenBatch: one independent pipeline check per item, up to `concurrency` at once, results in
// input order, through the one screen path (screen-stream.ts) that `screenFile` streams too.
// There is no batch verdict: each item carries its own state and verdict, and the document
// never contains item text (only its SHA-256 and code-point length).
import { canonicalJson } from "../core/canonical.js";
import { BatchDocumentSchema, type BatchDocument, type BatchItem } from "../documents/schemas.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { CanaryCircuitBreaker } from "../pipeline/circuit-breaker.js";
import type { ReaderLimits } from "../documents/reader-limits.js";
import { admitScreenInputs, type ScreenInput } from "./admit.js";
import type { ItemVerdictCache } from "./check-item.js";
import { screenStream } from "./screen-stream.js";

/** Options of `screenBatch`. */
export interface ScreenOptions {
  readonly concurrency?: number;
  readonly limits?: Partial<ReaderLimits>;
  readonly signal?: AbortSignal;
  /** Called after each item (as it joins the document, in input order), with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Stops canary calls after consecutive unreachable/timeout failures; read its `trip` after
   * the batch. Items then not sent are `degraded` with error `canary_circuit_open`, unless the
   * structural layer blocks them (that check needs no canary call). Default: a breaker with
   * the default threshold.
   */
  readonly breaker?: CanaryCircuitBreaker;
  /** A verdict cache around each item's check (see check-item.ts); none by default. */
  readonly cache?: ItemVerdictCache;
}

/**
 * Validates `records` all-or-nothing (admit.ts), screens them and returns the batch document. The
 * window spans the whole array (it is in memory already), so a free lane always takes the next item.
 */
export async function screenBatch(
  records: readonly ScreenInput[],
  pipeline: Pick<SecurityPipeline, "check">,
  options: ScreenOptions = {},
): Promise<BatchDocument> {
  const items = admitScreenInputs(records, options.limits);
  // An OpenAI-compatible canary server must show it holds a whole window before the first check.
  if (items.length > 0) await preflightCanary(pipeline);
  const { cache, signal, onProgress } = options;
  const concurrency = options.concurrency ?? 1;
  const breaker = options.breaker ?? new CanaryCircuitBreaker();
  const window = Math.max(concurrency, items.length);
  const run = { pipeline, concurrency, window, breaker, cache, signal, onProgress: (done: number) => onProgress?.(done, items.length) };
  const results: BatchItem[] = [];
  const source = (async function* () {
    yield* items;
  })();
  const tally = await screenStream(source, run, async (item) => void results.push(item));
  return BatchDocumentSchema.parse({ ...tally.rest(), items: results }) as BatchDocument;
}

/** Canonical JSON of a batch document (core/canonical.ts): the exact bytes `screen` prints. */
export function serializeBatch(document: BatchDocument): string {
  return canonicalJson(BatchDocumentSchema, document);
}

/**
 * Exit code of `screen`: 2 for an empty batch or any degraded/unexercised item, else 1 for any
 * block/flag, else 0. Takes a document or the summary of a streamed one.
 */
export function batchExitCode(document: Pick<BatchDocument, "total" | "counts">): 0 | 1 | 2 {
  if (document.total === 0) return 2;
  if (document.counts.degraded > 0 || document.counts.unexercised > 0) return 2;
  if (document.counts.block > 0 || document.counts.flag > 0) return 1;
  return 0;
}
