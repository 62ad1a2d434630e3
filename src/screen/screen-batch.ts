// The one screen path and `screenBatch`. Admitted items from any source (`screenFile`'s second read,
// `screenBatch`'s array) are checked by the one item checker (check-item.ts), at most `concurrency`
// at once, and handed to a sink in input order, counted as they go: checks, cache, circuit breaker
// and order are one code for both, and memory is bounded by the window, never by the source. The
// tally is gathered one finished item at a time, so neither path needs the items at the end.
// There is no batch verdict: each item carries its own state and verdict, and the document
// never contains item text (only its SHA-256 and code-point length).
import { canonicalJson } from "../core/canonical.js";
import { BATCH_SCHEMA, BATCH_STATES, BatchDocumentSchema, type BatchDocument, type BatchItem, type BatchState } from "../documents/schemas.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { CanaryCircuitBreaker, CIRCUIT_OPEN_ERROR, type CanaryOutageReason, failedCanaryReason, observeCanary } from "../pipeline/circuit-breaker.js";
import { ReasonTally, type ReasonCounts } from "../pipeline/reason-tally.js";
import { concurrencyOption, hasCheckMethod, itemCacheOption, refuseUnknownOptions } from "../core/guards.js";
import { UsageError } from "../core/errors.js";
import { mapOrderedStream, type MapOrderedStreamOptions } from "../pipeline/map-ordered.js";
import { readerLimitsOption, type ReaderLimits } from "../documents/reader-limits.js";
import { admitScreenInputs, type ScreenInput, type ScreenItem } from "./admit.js";
import { itemChecker, type CheckedItem, type ItemCheckOptions, type ItemVerdictCache } from "./check-item.js";
import { fanOutSignal } from "../core/fan-out-signal.js";

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

/** Every option screenBatch takes; `satisfies` keeps the list equal to the interface. */
const SCREEN_OPTION_KEYS = Object.keys({
  concurrency: true,
  limits: true,
  signal: true,
  onProgress: true,
  breaker: true,
  cache: true,
} satisfies Record<keyof ScreenOptions, true>);

/**
 * Validates `records` all-or-nothing (admit.ts), screens them and returns the batch document. The
 * window spans the whole array (it is in memory already), so a free lane always takes the next item.
 */
export async function screenBatch(
  records: readonly ScreenInput[],
  pipeline: Pick<SecurityPipeline, "check">,
  options: ScreenOptions = {},
): Promise<BatchDocument> {
  refuseUnknownOptions("screenBatch", options, SCREEN_OPTION_KEYS);
  if (!Array.isArray(records) || !hasCheckMethod(pipeline)) {
    // The commonest slip: the pipeline first (ingestRecords takes its pipeline first, screenBatch its items).
    const swapped = Array.isArray(pipeline) && hasCheckMethod(records) ? " (the first argument is the pipeline: pass the items first)" : "";
    throw new UsageError(
      `screenBatch(items, pipeline, options?) takes an array of items first, each a string or { text, id?, source?, metadata? }, then the pipeline${swapped}`,
    );
  }
  const concurrency = concurrencyOption("screenBatch", options.concurrency);
  const cache = itemCacheOption("screenBatch", options.cache);
  const items = admitScreenInputs(records, readerLimitsOption("screenBatch", options.limits, "option"));
  // An OpenAI-compatible canary server must show it holds a whole window before the first check.
  if (items.length > 0) await preflightCanary(pipeline);
  const { signal, onProgress } = options;
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

/** How one run checks its items (the breaker and cache of each check, the concurrency and window of the run), resolved by its entry point. */
export interface ScreenRun extends ItemCheckOptions, MapOrderedStreamOptions {
  readonly pipeline: Pick<SecurityPipeline, "check">;
}

/**
 * Resolves with the items' tally once the last is handed to `sink` (with its parts' results, see
 * CheckedItem), or rejects with the first error of the source, the cache or the sink, or with the
 * abort reason at once.
 */
export async function screenStream(
  items: AsyncIterable<ScreenItem>,
  run: ScreenRun,
  sink: (item: BatchItem, index: number, checked: CheckedItem) => Promise<void>,
): Promise<BatchTally> {
  const tally = new BatchTally();
  const handOver = async (checked: CheckedItem, index: number): Promise<void> => {
    tally.add(checked);
    await sink(checked.item, index, checked);
  };
  // A falsy cache (a JavaScript caller's null) is no cache, as it always was.
  const abort = run.signal ? fanOutSignal(run.signal) : null;
  const check = itemChecker(run.pipeline, { breaker: run.breaker, cache: run.cache || undefined, ...(abort ? { signal: abort.signal } : {}) });
  try {
    await mapOrderedStream(items, check, handOver, run);
  } finally {
    abort?.release();
  }
  return tally;
}

/** A batch's totals: its document's counts, and what its canary warning line needs. */
export interface BatchSummary {
  readonly total: number;
  readonly counts: Readonly<Record<BatchState, number>>;
  /** Items not sent to the canary because the circuit breaker had opened. */
  readonly notSent: number;
  /**
   * Items whose canary call found the backend unreachable or timed out, how many of those items
   * are blocked all the same (by a check that did run, in any part), and each reason with its
   * items, most first.
   */
  readonly outage: { readonly affected: number; readonly blocked: number; readonly reasons: ReasonCounts<CanaryOutageReason> };
  /** Items whose canary call failed for another reason (an answer that is not a canary's, …), likewise. */
  readonly failed: { readonly affected: number; readonly blocked: number; readonly reasons: ReasonCounts };
}

/** Adds up finished items in input order. */
export class BatchTally {
  private total = 0;
  private readonly counts = Object.fromEntries(BATCH_STATES.map((state) => [state, 0])) as Record<BatchState, number>;
  private notSent = 0;
  private affected = 0;
  private affectedBlocked = 0;
  private failedAffected = 0;
  private failedBlocked = 0;
  private readonly outages = new ReasonTally<CanaryOutageReason>();
  private readonly failures = new ReasonTally();

  /**
   * Counts one finished item. What its canary calls met is read from every part it was screened
   * in, not only the deciding one: an item counts once for each kind of trouble any part met.
   */
  add({ item, parts }: CheckedItem): void {
    this.total++;
    this.counts[item.state]++;
    if (parts.some((part) => part.error === CIRCUIT_OPEN_ERROR)) this.notSent++;
    let outage: CanaryOutageReason | null = null;
    let failed: string | null = null;
    for (const { verdict } of parts) {
      if (verdict === undefined) continue;
      const seen = observeCanary(verdict);
      if (seen.kind === "outage") outage ??= seen.reason;
      else failed ??= failedCanaryReason(verdict);
    }
    const blocked = item.state === "block" ? 1 : 0;
    if (outage !== null) {
      this.outages.add(outage);
      this.affected++;
      this.affectedBlocked += blocked;
    } else if (failed !== null) {
      this.failures.add(failed);
      this.failedAffected++;
      this.failedBlocked += blocked;
    }
  }

  /** The totals so far. */
  summary(): BatchSummary {
    return {
      total: this.total,
      counts: { ...this.counts },
      notSent: this.notSent,
      outage: { affected: this.affected, blocked: this.affectedBlocked, reasons: this.outages.counts() },
      failed: { affected: this.failedAffected, blocked: this.failedBlocked, reasons: this.failures.counts() },
    };
  }

  /** The document's members other than `items`, for the items counted so far. */
  rest(): Omit<BatchDocument, "items"> {
    return { schema: BATCH_SCHEMA, total: this.total, counts: { ...this.counts } };
  }
}
