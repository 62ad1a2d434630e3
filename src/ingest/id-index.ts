// The index of record ids a streamed run consults, one key at a time in input order: which
// record first used an id (for `--unique-ids` and the repeated-id warning) and whether an id
// digest was seen before (for counts.duplicate_ids).
//
// `MemoryIdIndex` keeps every key in a Map; it serves runs held in memory and tests.

/** Remembers keys in input order and answers which index first used each. */
export interface RecordIdIndex {
  /** The index that first used `key`: `index` itself when `key` is new (and now remembered). */
  firstIndex(key: string, index: number): number;
  /** Frees the index (its file, for one on disk). Never throws. */
  close(): void;
}

/** A RecordIdIndex in memory. */
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
