// Screening a framework's documents as an ingest run screens records (`ingestRecords`): each comes
// back admitted or held with the manifest's reasons; nothing is dropped. Each document is read once
// into a snapshot, and an admitted one is rebuilt from it: passing on the caller's object would
// pass on whatever its getters answer on a next read, which no screen saw.
import { errorClassName, LittleCanaryError, UsageError } from "../core/errors.js";
import type { DegradedPolicy } from "../canary/pipeline-options.js";
import { resolvePolicy, type PolicyOverrides } from "../documents/policy.js";
import type { HoldReason } from "../documents/schemas.js";
import { manifestFacts } from "../documents/manifest-v2.js";
import type { CheckingPipeline } from "../ingest/gate.js";
import { ingestRecords, type IngestInput } from "../ingest/run.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import { hasCheckMethod, hasPlainPrototype, refuseUnknownOptions } from "../core/guards.js";

/** How documents are screened. */
export interface ScreenDocumentsOptions {
  /** The pipeline that checks each segment (a SecurityPipeline). */
  readonly pipeline: CheckingPipeline;
  /** strict/v1 with these overrides. */
  readonly policy?: PolicyOverrides;
  /** Documents checked at once (default 1). */
  readonly concurrency?: number;
  /** Let a pipeline this library did not build run (its results are then not context-verified). */
  readonly unverifiedPipeline?: boolean;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5). */
  readonly maxCanaryFailures?: number;
}

/** Every option of ScreenDocumentsOptions; `satisfies` keeps the list equal to the interface. */
export const SCREEN_DOCUMENTS_OPTION_KEYS: readonly string[] = Object.keys({
  pipeline: true,
  policy: true,
  concurrency: true,
  unverifiedPipeline: true,
  maxCanaryFailures: true,
} satisfies Record<keyof ScreenDocumentsOptions, true>);

/**
 * Why a document was held: the manifest's hold reasons, or `sibling_held` for a document admitted
 * on its own and held because another document of its source was (see `sourceOf`).
 */
export type DocumentHoldReason = HoldReason | "sibling_held";

/** A document that was not admitted, and why. */
export interface HeldDocument<D> {
  readonly document: D;
  /** Its position in the list given. */
  readonly index: number;
  /** The manifest's hold reasons (`blocked`, `flagged`, `degraded`, `malformed`, …), or `["sibling_held"]`. */
  readonly reasons: readonly DocumentHoldReason[];
  /**
   * The manifest's detail for a record held before any check, or for `sibling_held` which document
   * of the same source was held and why (positions and reasons only: never a text nor the source).
   */
  readonly detail: string | null;
}

/** Every document, admitted or held. */
export interface ScreenedDocuments<D> {
  /** What was screened of each admitted document, in the order given (the caller rebuilds the document from it). */
  readonly admitted: readonly ScreenedFields[];
  readonly held: readonly HeldDocument<D>[];
  /** What was read of each document, by position: its metadata copy is null when the metadata could not be read. */
  readonly reads: ReadonlyMap<number, DocumentRead>;
}

/** One document as it was read, once: its text, its id and a plain copy of its metadata (null: unreadable, held as malformed). */
interface DocumentRead extends Omit<ScreenedFields, "text" | "metadata"> {
  readonly text: unknown;
  readonly metadata: Record<string, unknown> | null;
}

/** The parts of a document that are screened. */
export interface DocumentFields {
  readonly text: unknown;
  readonly id: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The fields a document's source identity is read from: its screened id and metadata copy. */
export type SourceFields = Pick<ScreenedFields, "id" | "metadata">;

/** What was screened of one admitted document: its text, its id and a plain copy of its metadata. */
export interface ScreenedFields {
  readonly text: string;
  readonly id: string | null;
  /** A deep copy of the metadata as it was read and screened (plain objects, arrays, leaves). */
  readonly metadata: Record<string, unknown>;
}

/**
 * Screens `documents`: `fields` reads each one's text, id and metadata (once). Metadata that cannot
 * be flattened is held as malformed before any check. With `sourceOf` (a document's source, or null),
 * a document admitted on its own is held as `sibling_held` when another document of its source is
 * held (siblingsToHold).
 */
export async function screenDocumentRecords<D>(
  documents: readonly D[],
  fields: (document: D) => DocumentFields,
  options: ScreenDocumentsOptions,
  sourceOf?: (document: SourceFields) => string | null,
): Promise<ScreenedDocuments<D>> {
  const inputs: IngestInput[] = [];
  const inputOf: number[] = [];
  const early: HeldDocument<D>[] = [];
  const reads = new Map<number, DocumentRead>();
  const sources = new Map<number, string>();
  if (!Array.isArray(documents)) throw new UsageError("the documents to screen must be an array");
  // Dense: a hole of a sparse array is an entry (undefined) like any other, never skipped.
  const list: readonly D[] = Array.from(documents);
  list.forEach((document, index) => {
    let read: DocumentFields;
    try {
      read = fields(document);
    } catch (error) {
      // Not a document at all (null from a retriever, a number, a node without its node): never
      // passed on, reported as held like any other malformed one.
      reads.set(index, { text: undefined, id: null, metadata: null });
      early.push({ document, index, reasons: ["malformed"], detail: `document ${index} cannot be read (${errorClassName(error)})` });
      return;
    }
    const { text, id, metadata } = read;
    let copy: Record<string, unknown>;
    try {
      const snapshot = snapshotMetadata(metadata, `document ${index}'s metadata`);
      copy = snapshot.copy;
      inputs.push({ text, id, metadata: snapshot.flat });
      inputOf.push(index);
    } catch (error) {
      // A getter or proxy trap of the caller's metadata that throws: its document cannot be read,
      // like a document whose text cannot be (above), and is held, not the whole call refused.
      const detail = error instanceof LittleCanaryError ? error.message : `document ${index}'s metadata cannot be read (${errorClassName(error)})`;
      reads.set(index, { text, id, metadata: null });
      early.push({ document, index, reasons: ["malformed"], detail });
      return;
    }
    reads.set(index, { text, id, metadata: copy });
    // The caller's function gets a copy of its own: the screened copy is what is passed on, and a
    // function that wrote to it would pass on metadata no screen saw.
    const source = sourceOf?.({ id, metadata: structuredClone(copy) });
    // Only a string names a source: a caller's function written in JavaScript may answer anything.
    if (typeof source === "string") sources.set(index, source);
  });
  const run = await ingestRecords(
    options.pipeline,
    { inputs },
    {
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.maxCanaryFailures !== undefined ? { maxCanaryFailures: options.maxCanaryFailures } : {}),
      unverifiedPipeline: options.unverifiedPipeline === true,
    },
  );
  const outcome = new Map<number, HeldDocument<D> | "admitted">();
  for (const held of early) outcome.set(held.index, held);
  for (const entry of manifestFacts(run.manifest.document)) {
    const index = inputOf[entry.index] as number;
    const document = list[index] as D;
    outcome.set(
      index,
      entry.admission === "admitted" ? "admitted" : { document, index, reasons: entry.hold_reasons, detail: documentDetail(entry.detail, index) },
    );
  }
  const heldIndices = new Set([...outcome].flatMap(([index, result]) => (result === "admitted" ? [] : [index])));
  for (const [index, first] of siblingsToHold(sources, heldIndices)) {
    const reasons = (outcome.get(first) as HeldDocument<D>).reasons.join(", ");
    const detail = `held with its source document: document ${first} of the same source was held (${reasons})`;
    outcome.set(index, { document: list[index] as D, index, reasons: ["sibling_held"], detail });
  }
  const admitted: ScreenedFields[] = [];
  const held: HeldDocument<D>[] = [];
  list.forEach((_, index) => {
    const result = outcome.get(index);
    if (result === "admitted") {
      const { text, id, metadata } = reads.get(index) ?? {};
      // Only a string text can be admitted; anything else is held as malformed by ingest.
      if (typeof text !== "string" || !metadata) throw new LittleCanaryError("config", `document ${index} was admitted without a text`);
      admitted.push({ text, id: id ?? null, metadata });
    } else if (result !== undefined) held.push(result);
    else throw new LittleCanaryError("config", `document ${index} has no outcome`);
  });
  return { admitted, held, reads };
}

// Holding a source document whole: screening chunks one by one lets a payload's neighbours through
// (the chunk that carries it is held, the next one admitted), so a caller that cannot screen before
// splitting groups the chunks by their source document's identity.

/**
 * The admitted documents to hold because another document of their source was held, each mapped to
 * the first held one of that source. `sources` maps an index to its source (none: absent, a group of its own).
 */
export function siblingsToHold(sources: ReadonlyMap<number, string>, held: ReadonlySet<number>): Map<number, number> {
  const firstHeld = new Map<string, number>();
  for (const [index, source] of sources) {
    const first = firstHeld.get(source);
    if (held.has(index) && (first === undefined || index < first)) firstHeld.set(source, index);
  }
  const toHold = new Map<number, number>();
  for (const [index, source] of sources) {
    const first = firstHeld.get(source);
    if (first !== undefined && !held.has(index)) toHold.set(index, first);
  }
  return toHold;
}

// Query-time screening (docs/rag.md, "Query-time screening"): what a retriever returns (a web
// search tool, an upload) is screened by screenDocumentRecords and sorted into what the adapter
// passes on, by these rules (one copy for the LangChain compressor and the LlamaIndex postprocessor):
// - an admitted document is passed on, rebuilt from what was screened, marked `admitted`;
// - a held document is dropped (default) or, with `held: "flag"`, passed on marked `held` with its
//   reason codes (never its text, never the manifest detail);
// - one held only because the canary did not see all of it (degraded, unexercised, incomplete) is
//   held like any other unless `onDegraded: "fail_open"`: then it is passed on marked `fail_open`.
//   Fail-open never passes a detection (blocked, flagged), a malformed or over-budget document, or
//   one with a segment not checked at all (`error`: a check failed, the circuit breaker opened);
// - every held document, whatever happens to it next, is reported to `onHeld`.
// Each document is read once (the adapter's `read`), its metadata copied in that read, so a held or
// fail-open document passes on the reading that was screened, not a later one.

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

/** Every option of QueryScreenOptions; `satisfies` keeps the list equal to the interface. */
const QUERY_SCREEN_OPTION_KEYS: readonly string[] = [
  ...SCREEN_DOCUMENTS_OPTION_KEYS,
  ...Object.keys({ held: true, onDegraded: true, onHeld: true } satisfies Record<
    Exclude<keyof QueryScreenOptions<unknown>, keyof ScreenDocumentsOptions>,
    true
  >),
];

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

/**
 * A manifest's detail as the caller's documents know it: the document's own position (the
 * manifest counts only the documents that could be read, as "record N" or "item N") and the
 * policy's key for a limit, not the CLI's flag, wherever the detail names one: "record 1:
 * 'metadata' exceeds 32 keys (--max-metadata-keys)" for document 2 reads "document 2: 'metadata'
 * exceeds 32 keys (max_metadata_keys)", and "raise it with --max-item-bytes" reads "max_item_bytes".
 */
function documentDetail(detail: string | null, index: number): string | null {
  if (detail === null) return null;
  return detail
    .replace(/^(?:record|item) \d+(?=:)/, `document ${index}`)
    .replace(/--((?:max|segment)-[a-z]+(?:-[a-z]+)*)\b/g, (_whole, flag: string) => flag.replaceAll("-", "_"));
}

/** Refuses a RAG component built without a pipeline (or with something that cannot check a text), at once, not at its first call. */
export function requirePipeline(where: string, pipeline: unknown): void {
  if (!hasCheckMethod(pipeline)) throw new UsageError(`${where} needs pipeline, a SecurityPipeline that screens the documents`);
}

/** Checks the options and resolves them into the plan every call reads; throws UsageError. */
export function resolveQueryScreen<D>(options: QueryScreenOptions<D>, where: string): QueryScreenPlan<D> {
  // A misspelt option (`hold: "flag"`) would otherwise leave its default in force, unseen.
  refuseUnknownOptions(where, options, QUERY_SCREEN_OPTION_KEYS);
  requirePipeline(where, options.pipeline);
  // Overrides no screen accepts are refused now, not at the first query.
  resolvePolicy(options.policy);
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
  if (!Array.isArray(documents)) throw new UsageError("the documents to screen must be an array");
  if (documents.length === 0) {
    await plan.onHeld?.([]);
    return [];
  }
  // The document screen reads each document once, in order; what is passed on comes from that
  // reading. One that cannot be read keeps its place (undefined) and is held as malformed.
  const readings: Array<R | undefined> = [];
  const remembered = (document: D): R => {
    const slot = readings.push(undefined) - 1;
    const reading = read(document);
    readings[slot] = reading;
    return reading;
  };
  const outcome = await screenDocumentRecords(documents, remembered, plan.screen);
  const heldAt = new Map(outcome.held.map((h) => [h.index, h.reasons]));
  const passed = readings.flatMap((reading, index): PassedDocument<R>[] => {
    // What could not be read is not a document to pass on, flagged or not.
    if (reading === undefined) return [];
    const { text, id, metadata } = outcome.reads.get(index) as DocumentRead;
    const reasons = heldAt.get(index);
    const failOpen = plan.failOpen && reasons?.every((reason) => COVERAGE_ONLY.has(reason)) && typeof text === "string" && metadata !== null;
    const state: QueryScreenState | null = reasons === undefined ? "admitted" : failOpen ? "fail_open" : plan.held === "flag" ? "held" : null;
    if (state === null) return [];
    // Set last, over any key of the same name the document brought: the mark is the screen's word.
    const marks = { [SCREEN_STATE_KEY]: state, [HOLD_REASONS_KEY]: (reasons ?? []).join(",") };
    return [{ reading, fields: { text: typeof text === "string" ? text : "", id, metadata: { ...metadata, ...marks } } }];
  });
  await plan.onHeld?.(outcome.held);
  return passed;
}

// Framework metadata → an ingest record's string metadata. RAG loaders attach nested, typed
// metadata, parts of it as attacker-controlled as the text (a PDF's Title), so all of it is
// flattened into strings that ingest screens. Key scheme (docs/rag.md): the path of keys and array
// indices joined by "."; inside a segment "%" is "%25" and "." is "%2E", so `{"a.b": 1}` and
// `{a: {b: 1}}` stay apart. Leaves: strings as they are; finite numbers, bigints, booleans as
// JSON; null as "null"; a Date as ISO text; `undefined` and empty containers leave no key.
// Anything else is refused: dropping it would pass it on unscreened. Keys are in code-point order.

/** Deepest nesting flattened; deeper metadata is refused. */
export const MAX_METADATA_DEPTH = 16;
/**
 * Longest array flattened (holes and `undefined` included, which leave no key): every index is
 * read, so a sparse array of a billion holes would otherwise hold the call for minutes.
 */
const MAX_METADATA_ARRAY_LENGTH = 1_000_000;

const segment = (key: string): string => key.replaceAll("%", "%25").replaceAll(".", "%2E");

function leafText(value: unknown): string | undefined | null {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : null;
  if (value === null) return "null";
  if (value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return null;
}

/** What one walk over a document's metadata gives: the flattened strings and a copy of the data that was read. */
interface MetadataSnapshot {
  /** The flattened string metadata (see the key scheme above), in code-point order of keys. */
  readonly flat: Record<string, string>;
  /**
   * A plain deep copy of exactly the values the walk read: plain objects, arrays and leaves (a
   * Date copied). Screening this copy and passing it on, rather than the caller's object, is
   * what makes the screened metadata the metadata passed on: a getter or a proxy that answers
   * a second read differently never reaches the caller's output.
   */
  readonly copy: Record<string, unknown>;
}

/** Defines `key` on `target` as plain data: a key such as "__proto__" stays a plain key. */
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Flattens `metadata` and copies it in one walk, reading each property once (see
 * MetadataSnapshot). Throws UsageError, naming `what` and the depth (never a key or value, which
 * may be hostile), for metadata that cannot be flattened.
 */
function snapshotMetadata(metadata: Readonly<Record<string, unknown>>, what: string): MetadataSnapshot {
  const flat = new Map<string, string>();
  const open = new Set<object>();
  const walk = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === "object" && value !== null && !(value instanceof Date)) {
      if (depth > MAX_METADATA_DEPTH) throw new UsageError(`${what} is nested deeper than ${MAX_METADATA_DEPTH} levels`);
      if (open.has(value)) throw new UsageError(`${what} refers to itself (a cycle at depth ${depth})`);
      if (!Array.isArray(value) && !hasPlainPrototype(value))
        throw new UsageError(`${what} holds a value that is not JSON data (a class instance at depth ${depth})`);
      if (Array.isArray(value) && value.length > MAX_METADATA_ARRAY_LENGTH)
        throw new UsageError(`${what} holds an array of more than ${MAX_METADATA_ARRAY_LENGTH} items (at depth ${depth})`);
      open.add(value);
      // Array.from, not map: a hole is an entry (undefined, which leaves no key), never skipped.
      const entries: Array<[string, unknown]> = Array.isArray(value) ? Array.from(value, (item, i) => [String(i), item]) : Object.entries(value);
      const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
      for (const [key, child] of entries) define(copy, key, walk(child, path === "" ? segment(key) : `${path}.${segment(key)}`, depth + 1));
      open.delete(value);
      return copy;
    }
    const text = leafText(value);
    if (text === null) throw new UsageError(`${what} holds a value that cannot be written as text (at depth ${depth})`);
    if (text !== undefined) flat.set(path, text);
    return value instanceof Date ? new Date(value.getTime()) : value;
  };
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata) || !hasPlainPrototype(metadata)) {
    throw new UsageError(`${what} is not a plain object`);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) define(copy, key, walk(value, segment(key), 1));
  const out: Record<string, string> = {};
  for (const key of sortByCodePoint([...flat.keys()])) define(out, key, flat.get(key));
  return { flat: out, copy };
}

/** The flattened string metadata of `metadata` (see the key scheme above); throws as snapshotMetadata does. */
export function flattenMetadata(metadata: Readonly<Record<string, unknown>>, what = "metadata"): Record<string, string> {
  return snapshotMetadata(metadata, what).flat;
}
