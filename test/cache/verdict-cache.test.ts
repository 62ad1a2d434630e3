// The SQLite verdict cache in one process: what it stores and refuses, stats and pruning with an
// injected clock, and the files it refuses to open (left untouched).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CacheFileError, UncacheableVerdictError, VerdictCache, VERDICT_CACHE_SCHEMA_VERSION } from "../../src/cache/verdict-cache.js";
import { type LittleCanaryError, UsageError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hash.js";
import { testIdentity } from "../support/cache-identity.js";

const ID = testIdentity();
const OTHER = testIdentity("llama3.2:3b");
const text = (n: number): string => sha256Hex(`segment ${n}`);

let dir: string;
let now: number;
const clock = (): Date => new Date(now);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-cache-"));
  now = Date.parse("2026-12-01T12:00:00.000Z");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (name = "cache.sqlite"): VerdictCache => VerdictCache.open(join(dir, name), { clock });

describe("verdict cache", () => {
  it("a stored verdict reads back with its original checked_at and evidence, across reopen", () => {
    const value = { verdict: { safe: true, canary_status: "exercised" }, prompt_eval_count: 311, latency: 0.42 };
    let cache = open();
    cache.put({ textSha256: text(1), identity: ID, state: "pass", exercised: true, value });
    cache.put({ textSha256: text(2), identity: ID, state: "block", exercised: true, value: { v: 2 }, checkedAt: "2026-11-30T01:02:03.004Z" });
    cache.close();
    now += 86_400_000;
    cache = open();
    expect(cache.get(text(1), ID.key)).toEqual({ state: "pass", value, checkedAt: "2026-12-01T12:00:00.000Z" });
    expect(cache.get(text(2), ID.key)).toEqual({ state: "block", value: { v: 2 }, checkedAt: "2026-11-30T01:02:03.004Z" });
    expect(cache.get(text(3), ID.key)).toBeNull();
    expect(cache.get(text(1), OTHER.key)).toBeNull();
    cache.close();
  });

  it("degraded, unexercised, error and not_checked verdicts, and an unexercised pass/flag/block, are refused by put", () => {
    const cache = open();
    for (const state of ["degraded", "unexercised", "error", "not_checked", "anything"]) {
      for (const exercised of [true, false]) {
        expect(() => cache.put({ textSha256: text(1), identity: ID, state, exercised, value: {} })).toThrow(UncacheableVerdictError);
      }
    }
    for (const state of ["pass", "flag", "block"]) {
      const error = (() => {
        try {
          cache.put({ textSha256: text(1), identity: ID, state, exercised: false, value: {} });
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(UncacheableVerdictError);
      expect((error as LittleCanaryError).code).toBe("usage");
    }
    expect(cache.get(text(1), ID.key)).toBeNull();
    expect(cache.stats().entries).toBe(0);
    cache.close();
  });

  it("put refuses a malformed hash, an identity whose key is not its SHA-256, a non-object value", () => {
    const cache = open();
    const base = { textSha256: text(1), identity: ID, state: "pass", exercised: true, value: {} };
    expect(() => cache.put({ ...base, textSha256: "ABC" })).toThrow(UsageError);
    expect(() => cache.put({ ...base, identity: { key: OTHER.key, identity: ID.identity } })).toThrow(/not the SHA-256/);
    expect(() => cache.put({ ...base, value: [1, 2] as unknown as Record<string, unknown> })).toThrow(UsageError);
    expect(() => cache.put({ ...base, value: { x: Number.NaN } })).toThrow(UsageError);
    expect(() => cache.put({ ...base, checkedAt: "yesterday" })).toThrow(UsageError);
    expect(cache.stats().entries).toBe(0);
    cache.close();
  });

  it("stats counts entries per state and per identity with their time range, by aggregates", () => {
    const cache = open();
    cache.put({ textSha256: text(1), identity: ID, state: "pass", exercised: true, value: {} });
    now += 1000;
    cache.put({ textSha256: text(2), identity: ID, state: "flag", exercised: true, value: {} });
    now += 1000;
    cache.put({ textSha256: text(1), identity: OTHER, state: "block", exercised: true, value: {} });
    const stats = cache.stats();
    expect(stats).toMatchObject({
      schema_version: VERDICT_CACHE_SCHEMA_VERSION,
      entries: 3,
      by_state: { pass: 1, flag: 1, block: 0 + 1 },
      oldest_checked_at: "2026-12-01T12:00:00.000Z",
      newest_checked_at: "2026-12-01T12:00:02.000Z",
    });
    expect(stats.size_bytes).toBeGreaterThan(0);
    const byKey = new Map(stats.identities.map((i) => [i.key, i]));
    expect(byKey.get(ID.key)).toEqual({
      key: ID.key,
      identity: ID.identity,
      entries: 2,
      oldest_checked_at: "2026-12-01T12:00:00.000Z",
      newest_checked_at: "2026-12-01T12:00:01.000Z",
    });
    expect(byKey.get(OTHER.key)?.entries).toBe(1);
    cache.close();
  });

  it("prune by age (injected clock), by identity, keeping one identity, and refuses no condition", () => {
    const cache = open();
    for (let i = 0; i < 10; i++) {
      cache.put({ textSha256: text(i), identity: i % 2 === 0 ? ID : OTHER, state: "pass", exercised: true, value: { i } });
      now += 3_600_000;
    }
    // Entries were checked at 12:00, 13:00, ... 21:00; now is 22:00. Older than 5 h: 12:00–16:00.
    expect(cache.prune({ olderThan: 5 * 3_600_000 + 1 })).toBe(5);
    expect(cache.get(text(4), ID.key)).toBeNull();
    expect(cache.get(text(5), OTHER.key)).not.toBeNull();
    expect(cache.prune({ identityKey: OTHER.key, olderThan: 3 * 3_600_000 + 1 })).toBe(1); // 17:00 (text 5)
    expect(cache.prune({ keepIdentity: OTHER.key })).toBe(2); // texts 6 and 8
    expect(cache.stats().identities.map((i) => i.key)).toEqual([OTHER.key]);
    expect(cache.prune({ identityKey: OTHER.key })).toBe(2);
    // An identity left without entries is forgotten.
    expect(cache.stats()).toMatchObject({ entries: 0, identities: [] });
    expect(() => cache.prune({})).toThrow(/olderThan, identityKey or keepIdentity/);
    expect(() => cache.prune({ olderThan: -1 })).toThrow(UsageError);
    cache.close();
  });

  it("a read-only cache reads and reports but refuses put and prune", () => {
    const path = join(dir, "cache.sqlite");
    const writer = VerdictCache.open(path, { clock });
    writer.put({ textSha256: text(1), identity: ID, state: "pass", exercised: true, value: { a: 1 } });
    writer.close();
    const reader = VerdictCache.open(path, { readonly: true });
    expect(reader.get(text(1), ID.key)?.value).toEqual({ a: 1 });
    expect(reader.stats().entries).toBe(1);
    expect(() => reader.put({ textSha256: text(2), identity: ID, state: "pass", exercised: true, value: {} })).toThrow(/read-only/);
    expect(() => reader.prune({ olderThan: 0 })).toThrow(/read-only/);
    reader.close();
  });

  it("a missing file is refused (and not created) when it must exist", () => {
    const path = join(dir, "absent.sqlite");
    for (const options of [{ mustExist: true }, { readonly: true }]) {
      const error = catchError(() => VerdictCache.open(path, options));
      expect(error).toBeInstanceOf(CacheFileError);
      expect((error as CacheFileError).problem).toBe("missing");
      expect((error as Error).message).toContain(path);
    }
    expect(() => readFileSync(path)).toThrow();
  });

  it("a named pipe or a device is refused as not a regular file, and nothing is created beside it", () => {
    const fifo = join(dir, "pipe.sqlite");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    for (const path of [fifo, "/dev/null"]) {
      const error = catchError(() => VerdictCache.open(path));
      expect(error, path).toBeInstanceOf(CacheFileError);
      expect((error as CacheFileError).problem, path).toBe("unopenable");
      expect((error as Error).message, path).toBe(`the cache path ${path} is not a regular file`);
    }
    expect(readdirSync(dir)).toEqual(["pipe.sqlite"]);
    expect(existsSync("/dev/null-journal")).toBe(false);
  });

  it("a new cache in a directory that does not exist is refused naming the path and the directory, and nothing is created", () => {
    const path = join(dir, "missing", "cache.sqlite");
    const error = catchError(() => VerdictCache.open(path));
    expect(error).toBeInstanceOf(CacheFileError);
    expect((error as CacheFileError).problem).toBe("unopenable");
    expect((error as Error).message).toBe(
      `the cache file ${path} cannot be created: its directory ${join(dir, "missing")} does not exist; create it or give another path`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a file that is not SQLite, a damaged one, another application's database and an unknown schema are refused and left untouched", () => {
    const cases: Array<{ name: string; make: (path: string) => void; problem: string; code: string }> = [
      { name: "text.sqlite", make: (p) => writeFileSync(p, '{"schema":"little-canary-ingest-manifest/v1"}\n'), problem: "not_sqlite", code: "io" },
      { name: "short.sqlite", make: (p) => writeFileSync(p, "SQLite"), problem: "not_sqlite", code: "io" },
      {
        name: "damaged.sqlite",
        make: (p) => writeFileSync(p, Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4096, 0xa5)])),
        problem: "not_sqlite",
        code: "io",
      },
      {
        name: "foreign.sqlite",
        make: (p) => {
          const db = new Database(p);
          db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
          db.close();
        },
        problem: "foreign",
        code: "config",
      },
      {
        name: "future.sqlite",
        make: (p) => {
          VerdictCache.open(p).close();
          const db = new Database(p);
          db.exec("UPDATE little_canary_cache SET version = 99");
          db.close();
        },
        problem: "unknown_schema",
        code: "config",
      },
    ];
    for (const c of cases) {
      const path = join(dir, c.name);
      c.make(path);
      const before = readFileSync(path);
      for (const options of [{}, { readonly: true }]) {
        const error = catchError(() => VerdictCache.open(path, options));
        expect(error, c.name).toBeInstanceOf(CacheFileError);
        expect((error as CacheFileError).problem, c.name).toBe(c.problem);
        expect((error as CacheFileError).code, c.name).toBe(c.code);
        expect((error as Error).message, c.name).toContain(path);
      }
      expect(readFileSync(path).equals(before), c.name).toBe(true);
    }
    expect(catchError(() => VerdictCache.open(join(dir, "future.sqlite")))).toHaveProperty("message", expect.stringContaining("schema version 99"));
  });

  it("a directory as the cache path is refused with a typed error", () => {
    const error = catchError(() => VerdictCache.open(dir));
    expect(error).toBeInstanceOf(CacheFileError);
    expect((error as Error).message).toContain(dir);
  });

  it("the file is in WAL mode with a busy timeout", () => {
    const path = join(dir, "cache.sqlite");
    VerdictCache.open(path).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
}
