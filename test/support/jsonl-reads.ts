// The reader as tests and the reader bench call it: bytes in memory as a source, and the strict
// read holding every record. The product streams (scanRecords, recordBatches) from files and
// streams (src/jsonl/sources.ts) and never holds a whole input.
import { UsageError } from "../../src/core/errors.js";
import { READ_CHUNK_BYTES } from "../../src/jsonl/sources.js";
import { scanRecords, type ReadOptions, type ScanOutcome } from "../../src/jsonl/read.js";
import type { RawRecord } from "../../src/jsonl/record.js";

/** Chunks of an in-memory input. A string is encoded as UTF-8 (a lone surrogate becomes U+FFFD). */
export async function* fromBytes(input: Uint8Array | string, chunkBytes: number = READ_CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new UsageError("chunk size must be a positive integer");
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  for (let start = 0; start < bytes.byteLength; start += chunkBytes) {
    yield bytes.subarray(start, Math.min(start + chunkBytes, bytes.byteLength));
  }
}

/** The result of `readRecords`: every record, or a run-level refusal. */
export type ReadOutcome = Exclude<ScanOutcome, { ok: true }> | (Omit<Extract<ScanOutcome, { ok: true }>, "records"> & { records: RawRecord[] });

/** Reads JSONL strictly into records, refusals as values; holds every record. */
export async function readRecords(source: AsyncIterable<Uint8Array>, options: ReadOptions): Promise<ReadOutcome> {
  const records: RawRecord[] = [];
  const outcome = await scanRecords(source, options, (record) => void records.push(record));
  return outcome.ok ? { ...outcome, records } : outcome;
}
