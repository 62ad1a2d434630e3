// The per-run index of record ids: which record first used an id, without memory proportional
// to the number of records. Scratch data for one run in a private SQLite file in a directory the
// caller gives: removed on close, and on a failure while creating it. Durability is not needed
// (the run restarts from its input), so journaling and syncing are off and inserts are batched.
//
// Lookup is by a 53-bit hash of the id, then equality on the stored id text: two ids that share
// a hash are still two ids (no false duplicate), at the cost of one more row read.
import { randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { UsageError } from "../core/errors.js";
import { sqliteFailure } from "./sqlite-file.js";

/** Options of IdIndex.create. */
export interface IdIndexOptions {
  /** Inserts per transaction (default 4096): larger batches are faster; nothing is durable anyway. */
  readonly batchSize?: number;
  /** The hash lookups start from (default a 53-bit string hash); tests inject a weak one. */
  readonly hash?: (id: string) => number;
  /** SQLite page cache in KiB (default 8192): the index's memory bound. */
  readonly cacheKiB?: number;
}

/**
 * cyrb53: a fast non-cryptographic 53-bit hash of a string's UTF-16 code units (public domain,
 * bryc). Collisions are harmless here (equality is confirmed on the id text); only speed matters.
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

/** A per-run on-disk index of record ids; see the module header. */
export class IdIndex {
  /** The scratch file (inside the directory given to `create`). */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #hash: (id: string) => number;
  readonly #batchSize: number;
  readonly #find: Database.Statement<[number], { id: string; first: number }>;
  readonly #insert: Database.Statement<[number, string, number]>;
  #pending = 0;
  #closed = false;

  private constructor(path: string, db: Database.Database, options: IdIndexOptions) {
    this.path = path;
    this.#db = db;
    this.#hash = options.hash ?? idHash;
    this.#batchSize = options.batchSize ?? 4096;
    this.#find = db.prepare("SELECT id, first FROM ids WHERE h = ?");
    this.#insert = db.prepare("INSERT INTO ids (h, id, first) VALUES (?, ?, ?)");
  }

  /** Creates an empty index in a new file under `dir` (an existing, writable directory). */
  static create(dir: string, options: IdIndexOptions = {}): IdIndex {
    const batch = options.batchSize ?? 4096;
    if (!Number.isSafeInteger(batch) || batch < 1) throw new UsageError("batchSize must be a positive integer");
    const cacheKiB = options.cacheKiB ?? 8192;
    if (!Number.isSafeInteger(cacheKiB) || cacheKiB < 64) throw new UsageError("cacheKiB must be an integer of at least 64");
    const path = join(dir, `little-canary-ids-${process.pid}-${randomBytes(6).toString("hex")}.sqlite`);
    // Exclusive create: the name is ours alone, never an existing file someone placed there.
    try {
      closeSync(openSync(path, "wx", 0o600));
    } catch (error) {
      throw new UsageError(`cannot create the id index in ${dir} (${(error as NodeJS.ErrnoException).code ?? "error"})`, { cause: error });
    }
    let db: Database.Database | null = null;
    try {
      db = new Database(path);
      db.pragma("journal_mode = OFF");
      db.pragma("synchronous = OFF");
      db.pragma("locking_mode = EXCLUSIVE");
      db.pragma("temp_store = FILE");
      db.pragma(`cache_size = -${cacheKiB}`);
      db.exec("CREATE TABLE ids (h INTEGER NOT NULL, id TEXT NOT NULL, first INTEGER NOT NULL); CREATE INDEX ids_by_hash ON ids (h);");
      return new IdIndex(path, db, options);
    } catch (error) {
      db?.close();
      rmSync(path, { force: true });
      throw sqliteFailure(error, path, "unopenable");
    }
  }

  /**
   * Records that record `index` uses `id` and returns the index of the first record that used
   * it: `index` itself when the id is new.
   */
  firstIndex(id: string, index: number): number {
    if (this.#closed) throw new UsageError("the id index is closed");
    if (typeof id !== "string") throw new UsageError("an id must be a string");
    if (!Number.isSafeInteger(index) || index < 0) throw new UsageError("an index must be a non-negative integer");
    const h = this.#hash(id);
    if (!Number.isSafeInteger(h)) throw new UsageError("the id hash must return a safe integer");
    try {
      if (this.#pending === 0) this.#db.exec("BEGIN");
      for (const row of this.#find.iterate(h)) {
        if (row.id === id) return row.first;
      }
      this.#insert.run(h, id, index);
      if (++this.#pending >= this.#batchSize) {
        this.#db.exec("COMMIT");
        this.#pending = 0;
      }
      return index;
    } catch (error) {
      throw sqliteFailure(error, this.path);
    }
  }

  /** Closes the index and removes its file (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#db.open) this.#db.close();
    } finally {
      rmSync(this.path, { force: true });
    }
  }
}

/** Runs `use` with a new index under `dir` and removes the index afterwards, also when `use` throws. */
export async function withIdIndex<T>(dir: string, use: (index: IdIndex) => Promise<T> | T, options: IdIndexOptions = {}): Promise<T> {
  const index = IdIndex.create(dir, options);
  try {
    return await use(index);
  } finally {
    index.close();
  }
}
