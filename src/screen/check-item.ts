// One item's check, the single copy, run by the one screen path (screen-batch.ts): the item's
// provenance (never its text), then the pipeline's verdict and batch state, or `degraded` with a
// stable error name when the check failed or the circuit breaker stopped canary calls.
//
// A verdict cache wraps the check here and only here; only pass, flag and block are offered for
// storing, so a degraded or unexercised result is never reused.
//
// An item with an id, a source or metadata is also screened for that material exactly as
// `ingest` screens it (`metadataMaterial`), as attacker-controlled text of its own. The item
// takes the state of the worse part (block, degraded, flag, unexercised, pass; the text's on a
// tie) and that part's verdict, a metadata verdict's summary starting `metadata: `, so the batch
// schema is unchanged (docs/screen.md). Each part is cached under its own SHA-256.
import { createHash } from "node:crypto";
import { codePointLength } from "../core/codepoints.js";
import { BATCH_STATES, type BatchItem, type BatchState } from "../documents/schemas.js";
import { metadataMaterial } from "../documents/segment-material.js";
import { isGenuineVerdict } from "../pipeline/verdict.js";
import { canaryProfile, type SecurityPipeline } from "../pipeline/pipeline.js";
import { type CanaryCircuitBreaker, CIRCUIT_OPEN_ERROR, observeCanary } from "../pipeline/circuit-breaker.js";
import type { ScreenItem } from "./admit.js";
import { batchState } from "./batch-state.js";

/** The states whose verdict may be reused: every layer ran, so the result says something. */
const REUSABLE_STATES: ReadonlySet<BatchItem["state"]> = new Set(["pass", "flag", "block"]);

/** Where a verdict cache plugs in: keyed by a part's SHA-256; the canary identity is the cache's own concern. */
export interface ItemVerdictCache {
  /** A stored item for this text, or null. Its index, id and source are replaced by the current item's. */
  lookup(textSha256: string): Promise<BatchItem | null> | BatchItem | null;
  /** Offers a freshly checked item; called only for `pass`, `flag` and `block`. */
  store(textSha256: string, item: BatchItem): Promise<void> | void;
}

/** What `itemChecker` needs besides the pipeline. */
export interface ItemCheckOptions {
  /** Shared by every item of a batch: once open, items that need the canary are not sent. */
  readonly breaker: CanaryCircuitBreaker;
  readonly cache?: ItemVerdictCache;
  /** The batch's abort: a check in flight is abandoned (its canary call closed) and the abort's reason thrown, never an item's error. */
  readonly signal?: AbortSignal;
}

/** The order in which a part's state decides an item's: the first that occurs wins (stateOf). */
const DECIDING_ORDER: readonly BatchState[] = ["block", "degraded", "flag", "unexercised", "pass"];
const rank = (state: BatchState): number => DECIDING_ORDER.indexOf(state);
// Every batch state has a rank: a new state must be placed in the order above.
if (BATCH_STATES.some((state) => rank(state) === -1)) throw new Error("a batch state has no place in DECIDING_ORDER");

/** The item the text's result gives when the metadata's decided it (a worse state: see the file comment). */
function decidedByMetadata(text: BatchItem, metadata: BatchItem): BatchItem {
  const verdict = metadata.verdict === undefined ? {} : { verdict: { ...metadata.verdict, summary: `metadata: ${metadata.verdict.summary}` } };
  // `reused` and `checked_at` describe the verdict the item carries: the deciding part's.
  const { verdict: _text, error: _error, reused: _reused, checked_at: _checkedAt, ...rest } = text;
  const reused = metadata.reused === true ? { reused: true as const, ...(metadata.checked_at === undefined ? {} : { checked_at: metadata.checked_at }) } : {};
  return { ...rest, state: metadata.state, ...verdict, ...(metadata.error === undefined ? {} : { error: metadata.error }), ...reused };
}

/**
 * One item's result and the result of each part it was screened in. The item carries only the
 * deciding part's verdict (the batch schema has one per item), so a part outvoted by a block in
 * the other (its canary call timed out, say) is seen only here: the run's canary warnings and
 * the CI reports read it from `parts`, so a canary outage or an unscreened text is never hidden
 * behind a block found in an item's labels.
 */
export interface CheckedItem {
  readonly item: BatchItem;
  /** The labels' result (when the item has an id, a source or metadata), then the text's. */
  readonly parts: readonly BatchItem[];
  /** Whose verdict the item carries: its text's, or its labels' (id, source and metadata material). */
  readonly decidedBy: "text" | "labels";
}

/** States of a part the screen did not vouch for (nothing, or only the structural layer, looked at it). */
const UNSCREENED_STATES: ReadonlySet<BatchState> = new Set(["degraded", "unexercised"]);

/** True when a part of the item was not (fully) screened though the item's own state is a finding. */
export function hasUnscreenedPart(checked: CheckedItem): boolean {
  return !UNSCREENED_STATES.has(checked.item.state) && checked.parts.some((part) => UNSCREENED_STATES.has(part.state));
}

/** The check of one item against `pipeline`, as a function of the item (see the file comment). */
export function itemChecker(pipeline: Pick<SecurityPipeline, "check">, options: ItemCheckOptions): (item: ScreenItem) => Promise<CheckedItem> {
  const { breaker, cache, signal } = options;
  const profile = canaryProfile(pipeline);
  const checkText = async (text: string, provenance: Omit<BatchItem, "state">): Promise<BatchItem> => {
    if (breaker.open && !(profile.skipsCanaryOn?.(text) ?? false)) return { ...provenance, state: "degraded", error: CIRCUIT_OPEN_ERROR };
    try {
      const verdict = await pipeline.check(text, signal ? { signal } : {});
      if (!isGenuineVerdict(verdict)) throw new TypeError("check did not return a PipelineVerdict");
      const record = verdict.toRecord();
      breaker.record(observeCanary(record));
      return { ...provenance, state: batchState(verdict), verdict: record };
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      // An item whose check failed was not screened: degraded, with only the error's class name.
      const name = error instanceof Error ? error.constructor.name : "Error";
      return { ...provenance, state: "degraded", error: name };
    }
  };
  // One part (the text, or the labels and metadata material) checked, or taken from the cache under
  // its own SHA-256: a record whose text changed keeps its labels' stored verdict, and the other way round.
  const part = async (text: string, provenance: Omit<BatchItem, "state">): Promise<BatchItem> => {
    const key = createHash("sha256").update(text, "utf8").digest("hex");
    const length = codePointLength(text);
    const own = { ...provenance, sha256: key, length };
    if (cache !== undefined) {
      const hit = await cache.lookup(key);
      if (hit !== null && hit.sha256 === key && hit.length === length && REUSABLE_STATES.has(hit.state)) {
        return { ...hit, index: provenance.index, id: provenance.id, source: provenance.source };
      }
    }
    const result = await checkText(text, own);
    if (cache !== undefined && REUSABLE_STATES.has(result.state)) await cache.store(key, result);
    return result;
  };
  return async (item) => {
    const provenance = { index: item.index, id: item.id, source: item.source, sha256: "", length: 0 };
    // The id, source and metadata first, exactly as ingest screens them (before the text): a record
    // that ingest would hold for an injection in its id or source is not passed by screen.
    const material = metadataMaterial({ id: item.id, source: item.source, metadata: item.metadata ?? {} });
    const labels = material === "" ? null : await part(material, provenance);
    const text = await part(item.text, provenance);
    // The item's provenance is its text's (SHA-256 and length), whichever part decided it.
    // The worse part decides (the text on a tie).
    const decidedBy = labels !== null && rank(labels.state) < rank(text.state) ? "labels" : "text";
    const decided = labels !== null && decidedBy === "labels" ? decidedByMetadata(text, labels) : text;
    return { item: { ...decided, sha256: text.sha256, length: text.length }, parts: labels === null ? [text] : [labels, text], decidedBy };
  };
}
