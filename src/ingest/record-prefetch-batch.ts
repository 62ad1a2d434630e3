// One batch of the record prefetch (record-prefetch.ts), in its worker: the stored whole entries
// of a run of planned records, every identity's under each key (at most MAX_IDENTITIES: the run's
// is not known yet), each put through exactly the checks of a lookup (record-cache.ts) and made
// ready with the facts the run counts it by (run-summary.ts), as lines of the prefetch's scratch
// file. Anything that fails is left to the run's own lookup.
import type { IngestPolicy } from "../documents/policy.js";
import { storedRecordEntry } from "./record-cache.js";
import { entryFacts, type EntryFacts } from "./run-summary.js";
import { RECORD_KEYS_PER_READ, type StoredRecordEntryRow } from "../cache/verdict-cache.js";

/** Entries read per record key: a record cached under more identities than this is looked up by the run. */
export const MAX_IDENTITIES = 4;

/** Where a batch reads stored entries (the worker's own connection to the cache file). */
export interface StoredEntrySource {
  recordEntriesUnder(recordKeys: readonly string[], perKey: number): StoredRecordEntryRow[];
}

/** A planned record the prefetch is asked about: its position and its record key. */
export type PrefetchItem = readonly [index: number, recordKey: string];

/** The head of one prefetched entry's line, before a tab and the entry's canonical JSON. */
export interface PrefetchedHead {
  /** Row id of the identity the entry is stored under. */
  readonly identity: number;
  readonly index: number;
  /** Segments the entry reuses (counted as verdict-cache hits). */
  readonly segments: number;
  readonly facts: EntryFacts;
}

/**
 * The scratch-file lines for `items` (and how many): per stored entry that holds together, `head`,
 * a tab, the entry placed at the record's position, a line break (JSON holds neither raw).
 */
export function prefetchBatch(source: StoredEntrySource, items: readonly PrefetchItem[], policy: IngestPolicy): { lines: Buffer; entries: number } {
  // A record key names one input line under the run's settings: two records share one only
  // when their lines are the same bytes, and then each gets the entry at its own position.
  const rowsByKey = new Map<string, StoredRecordEntryRow[]>();
  const keys = [...new Set(items.map(([, recordKey]) => recordKey))];
  for (let at = 0; at < keys.length; at += RECORD_KEYS_PER_READ) {
    for (const row of source.recordEntriesUnder(keys.slice(at, at + RECORD_KEYS_PER_READ), MAX_IDENTITIES)) {
      const rows = rowsByKey.get(row.recordKey);
      if (rows === undefined) rowsByKey.set(row.recordKey, [row]);
      else rows.push(row);
    }
  }
  const heads: string[] = [];
  const entries: string[] = [];
  let bytes = 0;
  for (const [index, recordKey] of items) {
    for (const row of rowsByKey.get(recordKey) ?? []) {
      const reused = storedRecordEntry(row.entry, index, policy);
      if (reused === null) continue;
      const head: PrefetchedHead = { identity: row.identityRowId, index, segments: reused.segments, facts: entryFacts(reused.entry) };
      const headJson = JSON.stringify(head);
      heads.push(headJson);
      entries.push(reused.json);
      bytes += Buffer.byteLength(headJson) + Buffer.byteLength(reused.json) + 2;
    }
  }
  // Written straight into one buffer of its own (handed to the main thread without a copy).
  const out = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (let i = 0; i < heads.length; i++) {
    at += out.write(heads[i] as string, at);
    out[at++] = 0x09;
    at += out.write(entries[i] as string, at);
    out[at++] = 0x0a;
  }
  return { lines: out, entries: heads.length };
}
