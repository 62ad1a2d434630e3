// The one admission of in-memory inputs (strings or objects a library caller passes instead of
// JSONL bytes): each input goes through the JSONL reader's record rules (buildRecord), and the
// run-level count and total-size limits are enforced as the reader enforces them, before any
// check runs. `screenBatch` and `ingestRecords` both admit through here, each naming its own
// refusals; what an input may be and how it is measured is decided once.
import type { ReaderKind, ReaderLimits } from "../documents/reader-limits.js";
import { buildRecord, type RawRecord } from "./record.js";

/** A run-level rule an in-memory input broke. */
type AdmissionRefusalCode = "too_many_items" | "not_a_record" | "total_bytes";

export interface AdmitOptions {
  /** Which record rules apply (the messages and the text budget differ; the keys are the same). */
  readonly kind: ReaderKind;
  /** Already validated reader limits. */
  readonly limits: ReaderLimits;
  /** The error to throw for a broken rule; `index` is the input's position for `not_a_record`. */
  readonly refuse: (code: AdmissionRefusalCode, index: number) => Error;
}

/** The caller's input deep-copied once (metadata included; an array stays one, refused later), so their mutation changes nothing. */
const snapshot = (input: unknown): unknown => (input !== null && typeof input === "object" && !Array.isArray(input) ? structuredClone({ ...input }) : input);

/** Records from in-memory inputs, or the `refuse` error of the first broken run-level rule. */
export function admitInMemoryInputs(inputs: readonly unknown[], options: AdmitOptions): RawRecord[] {
  const { kind, limits, refuse } = options;
  if (limits.maxItems !== 0 && inputs.length > limits.maxItems) throw refuse("too_many_items", inputs.length);
  let totalBytes = 0;
  const records: RawRecord[] = [];
  // Every index, not `map`: a hole of a sparse array is an item (undefined, so refused by its
  // index), never skipped into a hole of the result.
  for (let index = 0; index < inputs.length; index++) {
    const record = buildRecord(snapshot(inputs[index]), index + 1, { index, kind, limits, loneSurrogate: false });
    if (record === null) throw refuse("not_a_record", index);
    totalBytes += record.bytes;
    if (limits.maxTotalBytes !== 0 && totalBytes > limits.maxTotalBytes) throw refuse("total_bytes", index);
    records.push(record);
  }
  return records;
}
