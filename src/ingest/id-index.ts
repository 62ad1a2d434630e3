// The record ids an ingest run consults in input order: which record first used an id
// (`--unique-ids`, the repeated-id warning) and whether an id digest was seen (duplicate_ids).
// A run from a file uses the on-disk IdIndex (cache/id-index.ts); one in memory MemoryIdIndex.
import type { IdIndex } from "../cache/id-index.js";

/** Remembers keys in input order and answers which index first used each (`firstIndex`); `close` frees it. */
export type RecordIdIndex = Pick<IdIndex, "firstIndex" | "close">;

/** A RecordIdIndex in a Map, for a run whose records are in memory already (`ingestRecords`). */
export class MemoryIdIndex implements RecordIdIndex {
  private readonly first = new Map<string, number>();

  firstIndex(key: string, index: number): number {
    const seen = this.first.get(key);
    if (seen !== undefined) return seen;
    this.first.set(key, index);
    return index;
  }

  close(): void {
    this.first.clear();
  }
}
