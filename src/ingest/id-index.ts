// The index of record ids a streamed run consults, one key at a time in input order: which
// record first used an id (for `--unique-ids` and the repeated-id warning) and whether an id
// digest was seen before (for counts.duplicate_ids).
//
// A streamed run uses the on-disk IdIndex (src/cache/id-index.ts), so memory does not grow
// with the number of ids.

/** Remembers keys in input order and answers which index first used each. */
export interface RecordIdIndex {
  /** The index that first used `key`: `index` itself when `key` is new (and now remembered). */
  firstIndex(key: string, index: number): number;
  /** Frees the index (its file, for one on disk). Never throws. */
  close(): void;
}
