// screenBatch: one independent pipeline check per item, up to `concurrency` at once, results in
// input order. There is no batch verdict: each item carries its own state and verdict, and the
// document never contains item text (only its SHA-256 and code-point length).
import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical.js";
import { BATCH_SCHEMA, BATCH_STATES, BatchDocumentSchema, type BatchDocument, type BatchState } from "../documents/schemas.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { isGenuineVerdict } from "../pipeline/verdict.js";
import { mapOrdered } from "../schedule/map-ordered.js";
import { CanaryCircuitBreaker, CIRCUIT_OPEN_ERROR, canaryProfile, observeCanary, type CanaryProfile } from "../schedule/circuit-breaker.js";
import { codePointLength } from "../core/codepoints.js";
import type { ReaderLimits } from "../documents/reader-limits.js";
import { admitScreenInputs, type ScreenInput, type ScreenItem } from "./admit.js";
import { batchState } from "./state.js";

/** Options of `screenBatch` and `screenItems`. */
export interface ScreenOptions {
  readonly concurrency?: number;
  readonly limits?: Partial<ReaderLimits>;
  readonly signal?: AbortSignal;
  /** Called after each item, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Stops canary calls after consecutive unreachable/timeout failures; read its `trip` after
   * the batch. Items then not sent are `degraded` with error `canary_circuit_open`, unless the
   * structural layer blocks them (that check needs no canary call). Default: a breaker with
   * the default threshold.
   */
  readonly breaker?: CanaryCircuitBreaker;
}

type BatchItem = BatchDocument["items"][number];

async function screenItem(
  item: ScreenItem,
  pipeline: Pick<SecurityPipeline, "check">,
  breaker: CanaryCircuitBreaker,
  profile: CanaryProfile,
): Promise<BatchItem> {
  const provenance = {
    index: item.index,
    id: item.id,
    source: item.source,
    sha256: createHash("sha256").update(item.text, "utf8").digest("hex"),
    length: codePointLength(item.text),
  };
  if (breaker.open && !(profile.skipsCanaryOn?.(item.text) ?? false)) {
    return { ...provenance, state: "degraded", error: CIRCUIT_OPEN_ERROR };
  }
  try {
    const verdict = await pipeline.check(item.text);
    if (!isGenuineVerdict(verdict)) throw new TypeError("check did not return a PipelineVerdict");
    const record = verdict.toRecord();
    breaker.record(observeCanary(record));
    return { ...provenance, state: batchState(verdict), verdict: record };
  } catch (error) {
    // An item whose check failed was not screened: degraded, with only the error's class name.
    const name = error instanceof Error ? error.constructor.name : "Error";
    return { ...provenance, state: "degraded", error: name };
  }
}

/** Screens already-admitted items (see admit.ts) and returns the batch document. */
export async function screenItems(
  items: readonly ScreenItem[],
  pipeline: Pick<SecurityPipeline, "check">,
  options: ScreenOptions = {},
): Promise<BatchDocument> {
  const breaker = options.breaker ?? new CanaryCircuitBreaker();
  const profile = canaryProfile(pipeline);
  const results = await mapOrdered(items, (item) => screenItem(item, pipeline, breaker, profile), {
    concurrency: options.concurrency ?? 1,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const counts = Object.fromEntries(BATCH_STATES.map((state) => [state, 0])) as Record<BatchState, number>;
  for (const result of results) counts[result.state as BatchState] += 1;
  const document = { schema: BATCH_SCHEMA, total: results.length, counts, items: results };
  return BatchDocumentSchema.parse(document) as BatchDocument;
}

/** Library entry: validate `records` all-or-nothing, then screen them. */
export async function screenBatch(
  records: readonly ScreenInput[],
  pipeline: Pick<SecurityPipeline, "check">,
  options: ScreenOptions = {},
): Promise<BatchDocument> {
  return screenItems(admitScreenInputs(records, options.limits), pipeline, options);
}

/** Canonical JSON of a batch document (manifest/canonical.ts): the exact bytes `screen` prints. */
export function serializeBatch(document: BatchDocument): string {
  return canonicalJson(BatchDocumentSchema, document);
}

/** Exit code of `screen`: 2 for an empty batch or any degraded/unexercised item, else 1 for any block/flag, else 0. */
export function batchExitCode(document: BatchDocument): 0 | 1 | 2 {
  if (document.total === 0) return 2;
  if (document.counts.degraded > 0 || document.counts.unexercised > 0) return 2;
  if (document.counts.block > 0 || document.counts.flag > 0) return 1;
  return 0;
}
