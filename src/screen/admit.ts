// All-or-nothing admission of a screen batch: every item is validated (same record rules as the
// JSONL reader) and the count and total-size limits are enforced before any check
// runs. Any problem refuses the whole batch with a message that names the rule, never the text.
import { LittleCanaryError } from "../core/errors.js";
import { DEFAULT_READER_LIMITS, validateReaderLimits, type ReaderLimits } from "../documents/reader-limits.js";
import { admitInMemoryInputs } from "../jsonl/admit.js";
import type { RawRecord } from "../jsonl/record.js";

/** One in-memory input of `screen`: a string or an object with `text`, optional labels and optional metadata (as `ingest` takes them). */
export type ScreenInput =
  | string
  | {
      readonly text: string;
      readonly id?: string | null;
      readonly source?: string | null;
      readonly metadata?: Readonly<Record<string, string>>;
    };

/** A validated, snapshotted batch item. */
export interface ScreenItem {
  readonly index: number;
  readonly id: string | null;
  readonly source: string | null;
  readonly text: string;
  /** The record's metadata (an object of strings); absent or null when it had none. */
  readonly metadata?: Readonly<Record<string, string>> | null;
}

/** A screen batch was refused as a whole (an item or a limit rule); nothing was screened. */
export class BatchRefusedError extends LittleCanaryError {
  override readonly name = "BatchRefusedError";
  readonly reason: string;
  constructor(reason: string, message: string) {
    super("input_refused", message);
    this.reason = reason;
  }
}

/** The item of one reader record; refuses (BatchRefusedError) a record with a problem. */
export function itemFromRecord(record: RawRecord): ScreenItem {
  const problem = record.problems[0];
  if (problem) throw new BatchRefusedError(problem.code, problem.message);
  return Object.freeze({
    index: record.index,
    id: typeof record.id === "string" ? record.id : null,
    source: typeof record.source === "string" ? record.source : null,
    text: record.text as string,
    // Validated by the reader's record rules (an object of strings within the limits).
    metadata: record.keys.metadata ? Object.freeze({ ...(record.metadata as Record<string, string>) }) : null,
  });
}

/** Validates in-memory inputs with the reader's rules and limits (the one in-memory admission). */
export function admitScreenInputs(inputs: readonly ScreenInput[], limits: Partial<ReaderLimits> = {}): ScreenItem[] {
  const resolved = validateReaderLimits({ ...DEFAULT_READER_LIMITS, ...limits });
  const records = admitInMemoryInputs(inputs, {
    kind: "screen",
    limits: resolved,
    refuse: (code, index) =>
      code === "too_many_items"
        ? new BatchRefusedError(code, `batch exceeds the limit of ${resolved.maxItems} items`)
        : code === "not_a_record"
          ? new BatchRefusedError(code, `item ${index}: must be a string or object with 'text'`)
          : new BatchRefusedError(code, `batch exceeds the limit of ${resolved.maxTotalBytes} total bytes`),
  });
  return records.map(itemFromRecord);
}
