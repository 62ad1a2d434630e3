// The per-run index of record ids: which record first used an id, in memory that does not grow
// with the records. Scratch data in a private SQLite file under a directory the caller gives,
// removed on close (and on a failure while creating it); journaling and syncing are off, since
// the run restarts from its input. Rows are keyed by a 53-bit hash, but equality is decided on
// the stored id text (a shared hash is no false duplicate). For speed, a fixed-size Bloom filter
// says "certainly new" for almost every new id, and new ids wait in one bounded batch written
// sorted by hash in one transaction. Memory: one batch, the filter and SQLite's page cache
// (8 MiB each by default).
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openSqlite } from "./sqlite-open.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { inSqlite, sqliteFailure } from "./verdict-cache.js";
import { displayText } from "../core/display-text.js";

/** What an SQLite failure's message calls this file: ingest's own scratch file, not the verdict cache the user named. */
const ID_INDEX_LABEL = "ingest's temporary id index";

/** Options of IdIndex.create. */
export interface IdIndexOptions {
  /** New ids held before they are written, sorted, in one transaction (default 16384). */
  readonly batchSize?: number;
  /** The 53-bit hash rows are keyed by (default idHash); tests inject a weak one. */
  readonly hash?: (id: string) => number;
  /** Bits of the in-memory filter, a power of two from 2^10 to 2^30 (default 2^26: 8 MiB). */
  readonly filterBits?: number;
}

/**
 * cyrb53: a fast non-cryptographic 53-bit hash of a string's UTF-16 code units (public domain,
 * bryc). Collisions are harmless here (equality is decided on the id text); only speed matters.
 */
export function idHash(id: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < id.length; i++) {
    const ch = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Rows per multi-row INSERT when a batch is written: fewer calls into SQLite per id. */
const ROWS_PER_INSERT = 64;

interface PendingId {
  readonly h: number;
  readonly id: string;
  readonly first: number;
}

/** A per-run on-disk index of record ids; see the module header. */
export class IdIndex {
  /** The scratch file (inside the directory given to `create`). */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #hash: (id: string) => number;
  readonly #batchSize: number;
  readonly #filter: Uint32Array;
  readonly #filterMask: number;
  readonly #find: Database.Statement<[number, string], { first: number }>;
  readonly #insert: Database.Statement<[number, string, number]>;
  readonly #insertMany: Database.Statement<Array<number | string>>;
  /** New ids not yet written, by id text (exact equality). */
  #pending = new Map<string, PendingId>();
  #closed = false;

  private constructor(path: string, db: Database.Database, options: IdIndexOptions, filterBits: number) {
    this.path = path;
    this.#db = db;
    this.#hash = options.hash ?? idHash;
    this.#batchSize = options.batchSize ?? 16384;
    this.#filter = new Uint32Array(filterBits / 32);
    this.#filterMask = filterBits - 1;
    this.#find = db.prepare("SELECT first FROM ids WHERE h = ? AND id = ?");
    this.#insert = db.prepare("INSERT INTO ids (h, id, first) VALUES (?, ?, ?)");
    this.#insertMany = db.prepare(`INSERT INTO ids (h, id, first) VALUES ${Array(ROWS_PER_INSERT).fill("(?, ?, ?)").join(", ")}`);
  }

  /** Creates an empty index in a new file under `dir` (an existing, writable directory). */
  static create(dir: string, options: IdIndexOptions = {}): IdIndex {
    return IdIndex.createAt(join(dir, `little-canary-ids-${process.pid}-${randomBytes(6).toString("hex")}.sqlite`), options);
  }

  /** Creates an empty index in a new file at exactly `path` (which must not exist). */
  static createAt(path: string, options: IdIndexOptions = {}): IdIndex {
    const batch = options.batchSize ?? 16384;
    if (!Number.isSafeInteger(batch) || batch < 1) throw new UsageError("batchSize must be a positive integer");
    const filterBits = options.filterBits ?? 2 ** 26;
    if (!Number.isSafeInteger(filterBits) || filterBits < 2 ** 10 || filterBits > 2 ** 30 || (filterBits & (filterBits - 1)) !== 0) {
      throw new UsageError("filterBits must be a power of two from 2^10 to 2^30");
    }
    // Exclusive create: the name is ours alone, never an existing file someone placed there.
    try {
      closeSync(openSync(path, "wx", 0o600));
    } catch (error) {
      throw new LittleCanaryError("io", `cannot create the id index ${displayText(path)} (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
        cause: error,
      });
    }
    let db: Database.Database | null = null;
    try {
      db = openSqlite(path);
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.pragma("locking_mode = EXCLUSIVE");
      db.pragma("temp_store = FILE");
      db.pragma("cache_size = -8192");
      // A rowid table filled in batch order, and an index on the hash filled in sorted runs.
      db.exec("CREATE TABLE ids (h INTEGER NOT NULL, id TEXT NOT NULL, first INTEGER NOT NULL); CREATE INDEX ids_by_hash ON ids (h);");
      return new IdIndex(path, db, options, filterBits);
    } catch (error) {
      db?.close();
      rmSync(path, { force: true });
      throw sqliteFailure(error, path, "unopenable", ID_INDEX_LABEL);
    }
  }

  /**
   * Records that record `index` uses `id` and returns the index of the first record that used
   * it: `index` itself when the id is new.
   */
  firstIndex(id: string, index: number): number {
    if (this.#closed) throw new UsageError("the id index is closed");
    // A lone surrogate would reach SQLite as U+FFFD, and two different ids could then look equal.
    if (typeof id !== "string" || !id.isWellFormed()) throw new UsageError("an id must be a well-formed string");
    if (!Number.isSafeInteger(index) || index < 0) throw new UsageError("an index must be a non-negative integer");
    const h = this.#hash(id);
    if (!Number.isSafeInteger(h)) throw new UsageError("the id hash must return a safe integer");
    // Two filter probes from the hash's low and high bits (double hashing).
    const a = (h >>> 0) & this.#filterMask;
    const b = ((h >>> 0) + (Math.floor(h / 4294967296) | 1)) & this.#filterMask;
    const seen = this.#testAndSet(a) & this.#testAndSet(b);
    if (seen) {
      const pending = this.#pending.get(id);
      if (pending !== undefined) return pending.first;
      const row = inSqlite(this.path, () => this.#find.get(h, id), undefined, ID_INDEX_LABEL);
      if (row !== undefined) return row.first;
    }
    this.#pending.set(id, { h, id, first: index });
    if (this.#pending.size >= this.#batchSize) this.#flush();
    return index;
  }

  /** Closes the index and removes its file (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = new Map();
    try {
      if (this.#db.open) this.#db.close();
    } finally {
      rmSync(this.path, { force: true });
    }
  }

  /** Whether filter bit `bit` was set (1) or not (0); sets it. */
  #testAndSet(bit: number): number {
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    const was = (this.#filter[word] as number) & mask;
    this.#filter[word] = (this.#filter[word] as number) | mask;
    return was === 0 ? 0 : 1;
  }

  /** Writes the batch sorted by hash in one transaction. */
  #flush(): void {
    const batch = [...this.#pending.values()].sort((x, y) => x.h - y.h);
    try {
      this.#db.exec("BEGIN");
      const args: Array<number | string> = new Array(ROWS_PER_INSERT * 3);
      let i = 0;
      for (; i + ROWS_PER_INSERT <= batch.length; i += ROWS_PER_INSERT) {
        for (let j = 0; j < ROWS_PER_INSERT; j++) {
          const p = batch[i + j] as PendingId;
          args[3 * j] = p.h;
          args[3 * j + 1] = p.id;
          args[3 * j + 2] = p.first;
        }
        this.#insertMany.run(...args);
      }
      for (; i < batch.length; i++) {
        const p = batch[i] as PendingId;
        this.#insert.run(p.h, p.id, p.first);
      }
      this.#db.exec("COMMIT");
    } catch (error) {
      throw sqliteFailure(error, this.path, undefined, ID_INDEX_LABEL);
    }
    this.#pending = new Map();
  }
}
