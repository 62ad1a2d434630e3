// Record entries in the SQLite verdict cache (schema version 3): stored and read back per
// identity, pruned with the verdicts they were built from, counted by stats, and a version 1
// file (written here through the old schema SQL) converted in place when opened for writing
// (read as it is when opened read-only).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VerdictCache, VERDICT_CACHE_SCHEMA_VERSION } from "../../src/cache/verdict-cache.js";
import { UsageError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hash.js";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { testIdentity } from "../support/cache-identity.js";
import { writeOldCache } from "../support/cache-old-format.js";

const ID = testIdentity();
const OTHER = testIdentity("llama3.2:3b");
const key = (n: number): string => sha256Hex(`record ${n}`);
const at = (hour: number): string => `2026-12-01T${String(hour).padStart(2, "0")}:00:00.000Z`;

let dir: string;
let now: number;
const clock = (): Date => new Date(now);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-record-entries-"));
  now = Date.parse("2026-12-01T20:00:00.000Z");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const path = (): string => join(dir, "cache.sqlite");
const open = (options: { readonly?: boolean } = {}): VerdictCache => VerdictCache.open(path(), { clock, ...options });

describe("record entries in the verdict cache", () => {
  it("an entry reads back under its key and identity only, and a put replaces it", () => {
    const cache = open();
    expect(VERDICT_CACHE_SCHEMA_VERSION).toBe(3);
    cache.putRecord({ recordKey: key(1), identity: ID, entry: '{"a":1}', oldestCheckedAt: at(10) });
    expect(cache.getRecord(key(1), ID.key)).toEqual({ entry: '{"a":1}', oldestCheckedAt: at(10) });
    expect(cache.getRecord(key(1), OTHER.key)).toBeNull();
    expect(cache.getRecord(key(2), ID.key)).toBeNull();
    cache.putRecord({ recordKey: key(1), identity: ID, entry: '{"a":2}', oldestCheckedAt: at(11) });
    expect(cache.getRecord(key(1), ID.key)).toEqual({ entry: '{"a":2}', oldestCheckedAt: at(11) });
    expect(() => cache.putRecord({ recordKey: "x", identity: ID, entry: "{}", oldestCheckedAt: at(1) })).toThrow(UsageError);
    expect(() => cache.putRecord({ recordKey: key(3), identity: ID, entry: "", oldestCheckedAt: at(1) })).toThrow(UsageError);
    expect(() => cache.putRecord({ recordKey: key(3), identity: ID, entry: "{}", oldestCheckedAt: "yesterday" })).toThrow(UsageError);
    cache.close();
  });

  it("prune removes record entries with the verdicts they rest on (by age, by identity) and stats count them", () => {
    const cache = open();
    cache.put({ textSha256: sha256Hex("s1"), identity: ID, state: "pass", exercised: true, value: {}, checkedAt: at(10) });
    cache.put({ textSha256: sha256Hex("s2"), identity: ID, state: "pass", exercised: true, value: {}, checkedAt: at(15) });
    cache.put({ textSha256: sha256Hex("s3"), identity: OTHER, state: "pass", exercised: true, value: {}, checkedAt: at(15) });
    cache.putRecord({ recordKey: key(1), identity: ID, entry: "{}", oldestCheckedAt: at(10) });
    cache.putRecord({ recordKey: key(2), identity: ID, entry: "{}", oldestCheckedAt: at(15) });
    cache.putRecord({ recordKey: key(3), identity: OTHER, entry: "{}", oldestCheckedAt: at(15) });
    expect(cache.stats().record_entries).toBe(3);
    // Older than 20:00 - 8 h = 12:00 goes: the 10:00 verdict and the entry built on it.
    expect(cache.prune({ olderThan: 8 * 3_600_000 })).toBe(1);
    expect(cache.getRecord(key(1), ID.key)).toBeNull();
    expect(cache.getRecord(key(2), ID.key)).not.toBeNull();
    expect(cache.prune({ identityKey: OTHER.key })).toBe(1);
    expect(cache.getRecord(key(3), OTHER.key)).toBeNull();
    expect(cache.stats().record_entries).toBe(1);
    expect(cache.prune({ keepIdentity: OTHER.key })).toBe(1);
    expect(cache.stats()).toMatchObject({ entries: 0, record_entries: 0, identities: [] });
    cache.close();
  });

  it("a version 1 cache keeps its verdicts, is read as it is read-only, and is upgraded when opened for writing", () => {
    // What version 1 wrote: no record entries, values as JSON text.
    writeOldCache(path(), 1, {
      identity: { key: ID.key, identity: canonicalJsonUnchecked(ID.identity) },
      verdicts: [{ textSha256: sha256Hex("s1"), state: "flag", value: '{"v":1}', checkedAt: at(9) }],
    });

    const reader = open({ readonly: true });
    expect(reader.getRecord(key(1), ID.key)).toBeNull();
    expect(reader.stats()).toMatchObject({ entries: 1, record_entries: 0 });
    expect(reader.get(sha256Hex("s1"), ID.key)).toEqual({ state: "flag", value: { v: 1 }, checkedAt: at(9) });
    reader.close();
    const untouched = new Database(path(), { readonly: true });
    expect(untouched.prepare("SELECT version FROM little_canary_cache").pluck().get()).toBe(1);
    untouched.close();

    const cache = open();
    expect(cache.get(sha256Hex("s1"), ID.key)).toEqual({ state: "flag", value: { v: 1 }, checkedAt: at(9) });
    cache.putRecord({ recordKey: key(1), identity: ID, entry: "{}", oldestCheckedAt: at(9) });
    expect(cache.getRecord(key(1), ID.key)).toEqual({ entry: "{}", oldestCheckedAt: at(9) });
    cache.close();
    const upgraded = new Database(path(), { readonly: true });
    expect(upgraded.prepare("SELECT version FROM little_canary_cache").pluck().get()).toBe(VERDICT_CACHE_SCHEMA_VERSION);
    upgraded.close();
  });
});
