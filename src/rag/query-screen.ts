// Query-time screening (docs/rag.md, "Query-time screening"): the documents a retriever returns
// (a web search tool, an upload) screened by the one document screen, screenDocumentRecords, and
// sorted into what the framework adapter passes on. The rules, stated once here for the LangChain
// compressor and the LlamaIndex postprocessor alike:
// - an admitted document is passed on, rebuilt from what was screened, marked `admitted`;
// - a held document is dropped (default) or, with `held: "flag"`, passed on marked `held` with its
//   reason codes (never its text, never the manifest detail);
// - a document held only because the canary did not see all of it (degraded, unexercised,
//   incomplete) is a held document like any other, unless the caller chose `onDegraded:
//   "fail_open"`: it is then passed on marked `fail_open`. Fail-open never passes a detection
//   (blocked, flagged), a malformed or over-budget document, or one a segment of which was not
//   checked at all (`error`: a check failed, the circuit breaker opened);
// - every held document, whatever happens to it next, is reported to `onHeld`.
// Each document is read once (the adapter's `read`), and its metadata copied in that one read, so
// what a held or fail-open document passes on is the reading that was screened, not a later one.
import { UsageError } from "../core/errors.js";
import type { DegradedPolicy } from "../canary/pipeline-options.js";
import {
  screenDocumentRecords,
  type DocumentFields,
  type DocumentRead,
  type DocumentHoldReason,
  type HeldDocument,
  type ScreenDocumentsOptions,
  type ScreenedFields,
} from "./screen-documents.js";

/** The metadata key that says what the screen made of a document passed on: see QueryScreenState. */
export const SCREEN_STATE_KEY = "little_canary_screen";
/** The metadata key with a passed-on document's hold reasons, comma-separated (empty when admitted). */
export const HOLD_REASONS_KEY = "little_canary_hold_reasons";

/** What the screen made of a document passed on: `admitted`, `held` (only with `held: "flag"`) or `fail_open`. */
export type QueryScreenState = "admitted" | "held" | "fail_open";

/** What happens to a held document: dropped from the results, or passed on marked `held`. */
export type HeldHandling = "drop" | "flag";

/** Options of the query-time adapters: how to screen, and what to do with what is held. */
export interface QueryScreenOptions<D> extends ScreenDocumentsOptions {
  /** `drop` (default) removes held documents from the results; `flag` passes them on, marked. */
  readonly held?: HeldHandling;
  /**
   * `fail_closed` (default): a document the canary did not see all of is held. `fail_open`: it is
   * passed on, marked `fail_open` (its structural check still ran on every segment).
   */
  readonly onDegraded?: DegradedPolicy;
  /**
   * Receives the documents each call held (an empty list when none), dropped, flagged or passed
   * fail-open alike. Required when held documents are dropped: they must be reported, not lost.
   */
  readonly onHeld?: (held: readonly HeldDocument<D>[]) => void | Promise<void>;
}

/** QueryScreenOptions resolved once, when the adapter is built. */
export interface QueryScreenPlan<D> {
  readonly screen: ScreenDocumentsOptions;
  readonly held: HeldHandling;
  readonly failOpen: boolean;
  readonly onHeld: ((held: readonly HeldDocument<D>[]) => void | Promise<void>) | null;
}

/** A document to pass on: the adapter's one reading of it, and what was screened of it. */
export interface PassedDocument<R> {
  readonly reading: R;
  /** Text, id and a plain metadata copy with SCREEN_STATE_KEY and HOLD_REASONS_KEY set. */
  readonly fields: ScreenedFields;
}

// The reasons that mean only "the canary did not see all of it": fail-open may pass these.
const COVERAGE_ONLY = new Set<DocumentHoldReason>(["degraded", "unexercised", "incomplete"]);

/** Checks the options and resolves them into the plan every call reads; throws UsageError. */
export function resolveQueryScreen<D>(options: QueryScreenOptions<D>): QueryScreenPlan<D> {
  const held = options.held ?? "drop";
  if (held !== "drop" && held !== "flag") throw new UsageError("held must be 'drop' or 'flag'");
  const onDegraded = options.onDegraded ?? "fail_closed";
  if (onDegraded !== "fail_open" && onDegraded !== "fail_closed") throw new UsageError("onDegraded must be 'fail_open' or 'fail_closed'");
  if (options.onHeld !== undefined && typeof options.onHeld !== "function") throw new UsageError("onHeld must be a function");
  if (held === "drop" && options.onHeld === undefined)
    throw new UsageError("onHeld is required when held documents are dropped: they must be reported, not lost");
  const { held: _held, onDegraded: _onDegraded, onHeld, ...screen } = options;
  const failOpen = onDegraded === "fail_open";
  const stopAfterHold = screen.policy?.stop_after_hold;
  if (failOpen && stopAfterHold !== undefined && stopAfterHold !== false) {
    throw new UsageError("onDegraded 'fail_open' needs stop_after_hold false: a fail-open document must have had every segment checked");
  }
  // Fail-open passes only documents whose every segment went through the pipeline, so each
  // record is checked to its end, and the breaker stays off unless asked for: once open it
  // leaves segments unchecked (`error`), which fail-open never passes.
  const plan: ScreenDocumentsOptions = failOpen
    ? { ...screen, policy: { ...screen.policy, stop_after_hold: false }, maxCanaryFailures: screen.maxCanaryFailures ?? 0 }
    : screen;
  return Object.freeze({ screen: Object.freeze(plan), held, failOpen, onHeld: onHeld ?? null });
}

function marked(
  text: string,
  id: string | null,
  metadata: Record<string, unknown>,
  state: QueryScreenState,
  reasons: readonly DocumentHoldReason[],
): ScreenedFields {
  // Set last, over any key of the same name the document brought: the mark is the screen's word.
  return { text, id, metadata: { ...metadata, [SCREEN_STATE_KEY]: state, [HOLD_REASONS_KEY]: reasons.join(",") } };
}

/**
 * Screens `documents` (see the module comment), each read once by `read`, and returns those to pass
 * on, in order; reports the held ones to `onHeld`. Throws what the screen throws (a refused context
 * gate, for instance), whatever `onDegraded` says.
 */
export async function screenAtQueryTime<D, R extends DocumentFields>(
  documents: readonly D[],
  read: (document: D) => R,
  plan: QueryScreenPlan<D>,
): Promise<PassedDocument<R>[]> {
  if (documents.length === 0) {
    await plan.onHeld?.([]);
    return [];
  }
  // The document screen reads each document once, in order; what is passed on comes from that reading.
  const readings: R[] = [];
  const remembered = (document: D): R => readings[readings.push(read(document)) - 1] as R;
  const outcome = await screenDocumentRecords(documents, remembered, plan.screen, (_, document) => document);
  const heldAt = new Map(outcome.held.map((h) => [h.index, h]));
  const passed: PassedDocument<R>[] = [];
  readings.forEach((reading, index) => {
    const { text, id, metadata } = outcome.reads.get(index) as DocumentRead;
    const h = heldAt.get(index);
    if (h === undefined) {
      passed.push({ reading, fields: marked(text as string, id, metadata ?? {}, "admitted", []) });
      return;
    }
    const coverageOnly = h.reasons.every((reason) => COVERAGE_ONLY.has(reason));
    if (plan.failOpen && coverageOnly && typeof text === "string" && metadata !== null) {
      passed.push({ reading, fields: marked(text, id, metadata, "fail_open", h.reasons) });
    } else if (plan.held === "flag") {
      passed.push({ reading, fields: marked(typeof text === "string" ? text : "", id, metadata ?? {}, "held", h.reasons) });
    }
  });
  await plan.onHeld?.(outcome.held);
  return passed;
}
