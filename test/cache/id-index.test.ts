// The per-run id index: the first index of every id, with memory independent of the number of
// ids; equal hashes never make two different ids duplicates; the scratch file never outlives it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IdIndex, idHash } from "../../src/cache/id-index.js";
import { UsageError } from "../../src/core/errors.js";
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { sqliteFailure } from "../../src/cache/verdict-cache.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-ids-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a Map would answer: the first index of each id. */
function expected(ids: readonly string[]): number[] {
  const first = new Map<string, number>();
  return ids.map((id, index) => {
    if (!first.has(id)) first.set(id, index);
    return first.get(id) as number;
  });
}

/** Runs `use` with a new index under `dir` and closes it afterwards, also when `use` throws. */
async function withIdIndex<T>(dir: string, use: (index: IdIndex) => Promise<T> | T): Promise<T> {
  const index = IdIndex.create(dir);
  try {
    return await use(index);
  } finally {
    index.close();
  }
}

describe("id index", () => {
  it("firstIndex returns the first record that used each id, across batch commits", () => {
    const index = IdIndex.create(dir, { batchSize: 3 });
    try {
      const ids = ["a", "b", "a", "c", "", "b", "d", "", "a", "é", "e\u0301", "é"];
      expect(ids.map((id, i) => index.firstIndex(id, i))).toEqual(expected(ids));
    } finally {
      index.close();
    }
  });

  it("matches a Map on random id lists (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 4, unit: fc.constantFrom("a", "b", "\u0000", "é", "😀") }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 50 }),
        (ids, batchSize) => {
          const index = IdIndex.create(dir, { batchSize });
          try {
            expect(ids.map((id, i) => index.firstIndex(id, i))).toEqual(expected(ids));
          } finally {
            index.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("ids that share a hash are still different ids (no false duplicate)", () => {
    // Every id collides with every other: only the stored text can tell them apart.
    const index = IdIndex.create(dir, { hash: () => 7, batchSize: 2 });
    try {
      const ids = ["x", "y", "z", "y", "x", "w", "z"];
      expect(ids.map((id, i) => index.firstIndex(id, i))).toEqual([0, 1, 2, 1, 0, 5, 2]);
    } finally {
      index.close();
    }
    const weak = IdIndex.create(dir, { hash: (id) => id.length });
    try {
      const ids = Array.from({ length: 300 }, (_, i) => `id${i % 150}`);
      expect(ids.map((id, i) => weak.firstIndex(id, i))).toEqual(expected(ids));
    } finally {
      weak.close();
    }
  });

  it("batches written with multi-row inserts (and their remainders) keep every id, with either hash", () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `id-${(i * 7919) % 1300}`);
    for (const options of [{ batchSize: 130 }, { batchSize: 130, hash: (id: string) => id.length }, { batchSize: 64, filterBits: 1024 }]) {
      const index = IdIndex.create(dir, options);
      try {
        expect(ids.map((id, i) => index.firstIndex(id, i))).toEqual(expected(ids));
      } finally {
        index.close();
      }
    }
  });

  it("the default hash is a 53-bit integer and spreads similar ids", () => {
    const hashes = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const h = idHash(`record-${i}`);
      expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
      hashes.add(h);
    }
    expect(hashes.size).toBe(10_000);
  });

  it("the scratch file lives in the given directory and is removed on close, and when the user throws", async () => {
    const index = IdIndex.create(dir);
    expect(existsSync(index.path)).toBe(true);
    expect(index.path.startsWith(dir)).toBe(true);
    index.firstIndex("a", 0);
    index.close();
    index.close();
    expect(readdirSync(dir)).toEqual([]);
    expect(() => index.firstIndex("a", 1)).toThrow(UsageError);

    let seen = "";
    await expect(
      withIdIndex(dir, (ids) => {
        seen = ids.path;
        ids.firstIndex("a", 0);
        throw new Error("run failed");
      }),
    ).rejects.toThrow("run failed");
    expect(seen).not.toBe("");
    expect(readdirSync(dir)).toEqual([]);
    expect(await withIdIndex(dir, (ids) => [ids.firstIndex("q", 0), ids.firstIndex("q", 1)])).toEqual([0, 0]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a directory that does not exist is refused with a typed error and leaves nothing", () => {
    // A directory that cannot hold the file is an I/O failure; bad options are the caller's.
    expect(() => IdIndex.create(join(dir, "missing"))).toThrow(expect.objectContaining({ code: "io", message: expect.stringContaining("missing") }));
    expect(() => IdIndex.create(dir, { batchSize: 0 })).toThrow(UsageError);
    expect(() => IdIndex.create(dir, { filterBits: 3000 })).toThrow(UsageError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a hash that is not a safe integer, and an id with a lone surrogate, are refused", () => {
    const index = IdIndex.create(dir, { hash: () => 0.5 });
    try {
      expect(() => index.firstIndex("a", 0)).toThrow(UsageError);
      expect(() => index.firstIndex("\ud800", 1)).toThrow(UsageError);
    } finally {
      index.close();
    }
  });
});

describe("id index failures", () => {
  it("an SQLite failure names the file as ingest's temporary id index, never as a cache file", () => {
    // Every SQLite failure of the id index goes through sqliteFailure with its own label.
    const source = readFileSync(new URL("../../src/cache/id-index.ts", import.meta.url), "utf8");
    const calls = source.match(/(?:sqliteFailure|inSqlite)\([^\n]*\)/g) ?? [];
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const call of calls) expect(call).toContain("ID_INDEX_LABEL");
    const failure = sqliteFailure(
      new Database.SqliteError("unable to open", "SQLITE_CANTOPEN"),
      "/d/.m.json.1.ids.spool",
      "unopenable",
      "ingest's temporary id index",
    );
    expect((failure as Error).message).toBe("ingest's temporary id index /d/.m.json.1.ids.spool cannot be opened (SQLITE_CANTOPEN)");
    const cache = sqliteFailure(new Database.SqliteError("unable to open", "SQLITE_CANTOPEN"), "/d/c.sqlite", "unopenable");
    expect((cache as Error).message).toBe("the cache file /d/c.sqlite cannot be opened (SQLITE_CANTOPEN)");
    // A full disk: the cache's message says how to make room; the id index's does not offer the cache's fixes.
    const full = sqliteFailure(new Database.SqliteError("database or disk is full", "SQLITE_FULL"), "/d/c.sqlite");
    expect((full as Error).message).toBe(
      "the cache file /d/c.sqlite could not be written (SQLITE_FULL): the disk is full; free space on it, move the cache file to a disk with room (a prune needs room to work), or run without --cache",
    );
    const index = sqliteFailure(
      new Database.SqliteError("database or disk is full", "SQLITE_FULL"),
      "/d/.m.json.1.ids.spool",
      "write_failed",
      "ingest's temporary id index",
    );
    expect((index as Error).message).toBe("ingest's temporary id index /d/.m.json.1.ids.spool could not be written (SQLITE_FULL)");
  });
});
