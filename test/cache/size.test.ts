// The verdict cache's size (schema version 3): values and record entries stored packed and read
// back exactly; a version 2 file (written here through version 2's schema SQL) read as it is
// read-only and converted in place when opened for writing, with the same hits; bytes per entry
// in `stats`; `pruneToSize` removing the oldest entries until the file fits, and shrinking it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packJson, storedJsonDictionarySha256, unpackJson } from "../../src/cache/stored-json.js";
import { CacheFileError, MIN_CACHE_FILE_BYTES, VerdictCache, VERDICT_CACHE_SCHEMA_VERSION } from "../../src/cache/verdict-cache.js";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { UsageError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hash.js";
import { testIdentity } from "../support/cache-identity.js";
import { writeOldCache } from "../support/cache-old-format.js";
import { passVerdict } from "../support/verdicts.js";

const ID = testIdentity();
/** A time `n` minutes after a fixed start, as the cache stores it. */
const at = (n: number): string => new Date(Date.parse("2026-11-01T00:00:00.000Z") + n * 60_000).toISOString();
/** A value shaped like an ingest segment's, with its own latency and token count. */
const value = (n: number): Record<string, unknown> => ({
  state: "pass",
  exercised: true,
  verdict: passVerdict({ total_latency: n / 1000 }),
  latency: n / 1000,
  prompt_eval_count: 300 + n,
  signals: [],
});
/** A record entry text holding digests that do not compress, like a real one. */
const entry = (n: number): string =>
  canonicalJsonUnchecked({ id_sha256: sha256Hex(`id ${n}`), index: 0, length: n, segments: [value(n)], sha256: sha256Hex(`t ${n}`) });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-cache-size-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const path = (): string => join(dir, "cache.sqlite");
const onDisk = (): number => statSync(path()).size + (statSync(`${path()}-wal`, { throwIfNoEntry: false })?.size ?? 0);
const withDb = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(path());
  try {
    return fn(db);
  } finally {
    db.close();
  }
};

describe("the stored form", () => {
  it("the packing dictionary is part of the file format: it never changes in place (a new one needs a new schema version)", () => {
    expect(VERDICT_CACHE_SCHEMA_VERSION).toBe(3);
    expect(storedJsonDictionarySha256()).toBe("41dacb5901a15e99e1f13214234d1894b8dc9fcf021c744895bd83d9eee66068");
  });

  it("a packed text unpacks to the same text; a plain text, a foreign blob or an unfinished stream unpacks to nothing", () => {
    for (const text of ['{"a":1}', canonicalJsonUnchecked(value(7)), '{"s":"\uFFFD \u{1F600} é"}', "x".repeat(100_000)]) {
      expect(unpackJson(packJson(text))).toBe(text);
    }
    const packed = packJson(canonicalJsonUnchecked(value(7)));
    expect(unpackJson(canonicalJsonUnchecked(value(7)))).toBeNull();
    expect(unpackJson(Buffer.from("not deflate at all"))).toBeNull();
    expect(unpackJson(packed.subarray(0, packed.length - 3))).toBeNull();
    expect(unpackJson(null)).toBeNull();
  });

  it("a verdict and a record entry are stored packed, far smaller than their JSON, and read back exactly", () => {
    const cache = VerdictCache.open(path());
    cache.put({ textSha256: sha256Hex("s"), identity: ID, state: "pass", exercised: true, value: value(1), checkedAt: at(1) });
    cache.putRecord({ recordKey: sha256Hex("r"), identity: ID, entry: entry(1), oldestCheckedAt: at(1) });
    expect(cache.get(sha256Hex("s"), ID.key)).toEqual({ state: "pass", value: value(1), checkedAt: at(1) });
    expect(cache.getRecord(sha256Hex("r"), ID.key)).toEqual({ entry: entry(1), oldestCheckedAt: at(1) });
    cache.close();
    withDb((db) => {
      const stored = db.prepare("SELECT typeof(value) AS type, length(value) AS bytes FROM verdicts").get() as { type: string; bytes: number };
      expect(stored.type).toBe("blob");
      expect(stored.bytes).toBeLessThan(canonicalJsonUnchecked(value(1)).length / 5);
      const record = db.prepare("SELECT typeof(entry) AS type, length(entry) AS bytes FROM record_entries").get() as { type: string; bytes: number };
      expect(record.type).toBe("blob");
      expect(record.bytes).toBeLessThan(entry(1).length / 2);
    });
  });

  it("a plain JSON text in a version 3 file is never taken as a value: a verdict is refused as corrupt, a record entry is a miss", () => {
    const cache = VerdictCache.open(path());
    cache.put({ textSha256: sha256Hex("s"), identity: ID, state: "pass", exercised: true, value: value(1), checkedAt: at(1) });
    cache.putRecord({ recordKey: sha256Hex("r"), identity: ID, entry: entry(1), oldestCheckedAt: at(1) });
    cache.close();
    withDb((db) => {
      db.prepare("UPDATE verdicts SET value = ?").run(canonicalJsonUnchecked(value(1)));
      // The text as it was stored, with its own SHA-256 still beside it.
      db.prepare("UPDATE record_entries SET entry = ?").run(entry(1));
    });
    const reopened = VerdictCache.open(path());
    expect(lookup(reopened, sha256Hex("s"))).toBe("corrupt_entry");
    expect(reopened.getRecord(sha256Hex("r"), ID.key)).toBeNull();
    reopened.close();
  });
});

describe("a version 2 cache file", () => {
  const rows = {
    identity: { key: ID.key, identity: canonicalJsonUnchecked(ID.identity) },
    verdicts: Array.from({ length: 400 }, (_, n) => ({
      textSha256: sha256Hex(`s${n}`),
      state: n % 10 === 0 ? "flag" : "pass",
      value: canonicalJsonUnchecked(value(n)),
      checkedAt: at(n),
    })),
    records: Array.from({ length: 200 }, (_, n) => ({ recordKey: sha256Hex(`r${n}`), entry: entry(n), oldestCheckedAt: at(n) })),
  };

  it("is read as it is read-only, and converted in place when opened for writing: the same hits, the file smaller", () => {
    writeOldCache(path(), 2, rows);
    const reader = VerdictCache.open(path(), { readonly: true });
    expect(reader.stats()).toMatchObject({ schema_version: 2, entries: 400, record_entries: 200 });
    const before = rows.verdicts.map((v) => reader.get(v.textSha256, ID.key));
    const recordsBefore = rows.records.map((r) => reader.getRecord(r.recordKey, ID.key));
    reader.close();
    expect(before[3]).toEqual({ state: "pass", value: value(3), checkedAt: at(3) });
    expect(recordsBefore[3]).toEqual({ entry: entry(3), oldestCheckedAt: at(3) });
    withDb((db) => db.pragma("wal_checkpoint(TRUNCATE)"));
    const oldSize = onDisk();

    const cache = VerdictCache.open(path());
    expect(rows.verdicts.map((v) => cache.get(v.textSha256, ID.key))).toEqual(before);
    expect(rows.records.map((r) => cache.getRecord(r.recordKey, ID.key))).toEqual(recordsBefore);
    expect(cache.stats()).toMatchObject({ schema_version: VERDICT_CACHE_SCHEMA_VERSION, entries: 400, record_entries: 200 });
    cache.close();
    expect(onDisk()).toBeLessThan(oldSize / 2);
    withDb((db) => {
      expect(db.prepare("SELECT count(*) FROM verdicts WHERE typeof(value) <> 'blob'").pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM record_entries WHERE typeof(entry) <> 'blob'").pluck().get()).toBe(0);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
      expect(indexes).toEqual(["record_entries_by_key", "verdicts_by_age", "verdicts_by_text"]);
    });
  });

  it("converted while another process reads it, it still answers every lookup the same", () => {
    writeOldCache(path(), 2, rows);
    const reader = VerdictCache.open(path(), { readonly: true });
    const writer = VerdictCache.open(path());
    // The reader was opened on version 2 and reads the file as it now is: converted. Its
    // lookups fail typed (corrupt) or miss; none is a wrong hit.
    for (const v of rows.verdicts.slice(0, 5)) expect(["miss", "corrupt_entry"]).toContain(lookup(reader, v.textSha256));
    expect(writer.get(rows.verdicts[1]?.textSha256 as string, ID.key)).toEqual({ state: "pass", value: value(1), checkedAt: at(1) });
    reader.close();
    writer.close();
  });
});

describe("bytes per entry and pruning by size", () => {
  /** A cache of `count` entries checked one minute apart, and a record entry on every other one. */
  function fill(count: number): void {
    const cache = VerdictCache.open(path());
    for (let n = 0; n < count; n++) {
      cache.put({ textSha256: sha256Hex(`s${n}`), identity: ID, state: "pass", exercised: true, value: value(n), checkedAt: at(n) });
      if (n % 2 === 0) cache.putRecord({ recordKey: sha256Hex(`r${n}`), identity: ID, entry: entry(n), oldestCheckedAt: at(n) });
    }
    cache.close();
  }

  it("stats reports the bytes on disk per entry (null without entries)", () => {
    let cache = VerdictCache.open(path());
    expect(cache.stats().bytes_per_entry).toBeNull();
    cache.close();
    fill(50);
    cache = VerdictCache.open(path(), { readonly: true });
    const stats = cache.stats();
    cache.close();
    expect(stats.bytes_per_entry).toBe(Math.round(stats.size_bytes / 50));
  });

  it("removes the oldest entries, and the record entries built on them, until the file is at most the size, and the file shrinks", () => {
    fill(1500);
    let cache = VerdictCache.open(path());
    const before = onDisk();
    const target = Math.max(MIN_CACHE_FILE_BYTES, Math.floor(before / 3));
    const { removed, sizeBytes } = cache.pruneToSize(target);
    cache.close();
    expect(sizeBytes).toBeLessThanOrEqual(target);
    expect(onDisk()).toBeLessThanOrEqual(target);
    expect(removed).toBeGreaterThan(0);
    expect(removed).toBeLessThan(1500);
    cache = VerdictCache.open(path(), { readonly: true });
    // Exactly the oldest went: every entry checked before the first kept one, none after.
    const kept = Array.from({ length: 1500 }, (_, n) => cache.get(sha256Hex(`s${n}`), ID.key) !== null);
    expect(kept.indexOf(true)).toBe(removed);
    expect(kept.slice(removed).every(Boolean)).toBe(true);
    const records = Array.from({ length: 750 }, (_, i) => cache.getRecord(sha256Hex(`r${2 * i}`), ID.key) !== null);
    expect(records.every((present, i) => present === 2 * i >= removed)).toBe(true);
    expect(cache.stats()).toMatchObject({ entries: 1500 - removed, record_entries: records.filter(Boolean).length });
    cache.close();
  });

  it("a file already within the size is left as it is; a size below the smallest cache file is refused", () => {
    fill(20);
    const cache = VerdictCache.open(path());
    expect(cache.pruneToSize(100 * 1024 * 1024)).toEqual({ removed: 0, sizeBytes: onDisk() });
    expect(cache.stats().entries).toBe(20);
    expect(() => cache.pruneToSize(MIN_CACHE_FILE_BYTES - 1)).toThrow(UsageError);
    expect(() => cache.pruneToSize(1.5e6 + 0.5)).toThrow(UsageError);
    cache.close();
    const reader = VerdictCache.open(path(), { readonly: true });
    expect(() => reader.pruneToSize(MIN_CACHE_FILE_BYTES)).toThrow(UsageError);
    reader.close();
  });
});

/** What a lookup under ID gave: a hit, a miss, or the problem of the CacheFileError it threw. */
function lookup(cache: VerdictCache, textSha256: string): string {
  try {
    return cache.get(textSha256, ID.key) === null ? "miss" : "hit";
  } catch (error) {
    return error instanceof CacheFileError ? error.problem : "another error";
  }
}
