// The verdict cache: one SQLite file mapping (text SHA-256, identity key) to the verdict a check
// of that text under that canary identity returned, when it was checked, and its evidence.
// - Only exercised pass, flag and block verdicts are stored, so a degraded or unexercised result
//   is always checked again.
// - Every `put` is its own committed WAL transaction: a killed process keeps every put that
//   returned (a power loss may drop the last few, which are checked again, never reused wrongly).
// - Several processes may share a file: writers wait up to the busy timeout for SQLite's lock.
// - Memory does not grow with the entries: lookups are by key, `stats` is SQL aggregates.
// - A file that is not SQLite, not a verdict cache, or of an unknown schema version is refused
//   (CacheFileError naming the path) and never altered. One of version 1 or 2 (plain JSON text
//   values) is read as it is when opened read-only and converted in place, in one transaction,
//   when opened for writing: a stored form is only ever read as its file's version says. A non-SQLite
//   file is refused before SQLite touches it; SQLite's errors become CacheFileError (the id index's too).
// - Values and record entries are stored packed (stored-json.ts).
// - Record entries (a record's finished manifest entry, built from this file's verdicts) are as
//   old as their oldest segment verdict and are pruned with them and with their identity.
import { hash } from "node:crypto";
import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { openSqlite } from "./sqlite-open.js";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { isPlainObject } from "../core/guards.js";
import { isSha256Hex } from "../core/hash.js";
import { TimestampSchema } from "../documents/schemas.js";
import { identityKey, type CacheIdentity, type CanaryIdentity } from "./identity.js";
import { packJson, unpackJson } from "./stored-json.js";
import { displayText } from "../core/display-text.js";

/** Why a cache (or id index) file cannot be used, and how a message about an SQLite error says it. */
const CACHE_FILE_PROBLEMS = {
  missing: "does not exist", // and the caller asked not to create it
  not_sqlite: "is not an SQLite database (or is damaged)",
  foreign: "is not a little-canary verdict cache",
  unknown_schema: "has an unknown schema", // a schema version this library does not know
  unopenable: "cannot be opened", // a directory, no permission, ...
  busy: "stayed locked by another process for longer than the busy timeout",
  corrupt_entry: "holds an entry that does not read back",
  write_failed: "could not be written", // disk full, read-only file, ...
} as const;
type CacheFileProblem = keyof typeof CACHE_FILE_PROBLEMS;

/** A verdict cache or id index file cannot be used; the message names the path (the caller's, never record text). */
export class CacheFileError extends LittleCanaryError {
  override readonly name = "CacheFileError";
  /** What is wrong with the file. */
  readonly problem: CacheFileProblem;
  /** The file's path as the caller gave it. */
  readonly path: string;

  constructor(problem: CacheFileProblem, path: string, message: string, options?: { cause?: unknown }) {
    // An unknown schema is a configuration problem (the wrong file, or a newer library); the
    // rest are files that cannot be read or written.
    super(problem === "unknown_schema" || problem === "foreign" ? "config" : "io", message, options);
    this.problem = problem;
    this.path = path;
  }
}

/**
 * A caller tried to store a verdict the cache never keeps: anything but an exercised pass, flag
 * or block (a degraded, unexercised, error or not_checked result must be checked again).
 */
export class UncacheableVerdictError extends LittleCanaryError {
  override readonly name = "UncacheableVerdictError";
  /** The state the caller tried to store. */
  readonly state: string;
  /** The exercised flag the caller gave. */
  readonly exercised: boolean;

  constructor(state: string, exercised: boolean) {
    super(
      "usage",
      `the verdict cache stores only exercised pass, flag or block verdicts; refused state ${JSON.stringify(String(state).slice(0, 20))}` +
        `${exercised ? "" : " (not exercised)"}`,
    );
    this.state = state;
    this.exercised = exercised;
  }
}

/** The schema version this library reads and writes. */
export const VERDICT_CACHE_SCHEMA_VERSION = 3;
/** Older schema versions (plain JSON text values) this library converts when it opens them for writing. */
const CONVERTIBLE_SCHEMA_VERSIONS: readonly unknown[] = [1, 2];
/** The name in the schema table that marks a file as a little-canary verdict cache. */
const VERDICT_CACHE_SCHEMA = "little-canary-verdict-cache";
/** The smallest size `pruneToSize` accepts: an empty cache file takes about 40 KiB (10 pages of 4 KiB). */
export const MIN_CACHE_FILE_BYTES = 64 * 1024;
/** How long a write waits for another process's lock on the file by default. */
const DEFAULT_CACHE_BUSY_TIMEOUT_MS = 10_000;

type CachedState = "pass" | "flag" | "block";
const CACHED_STATES: readonly string[] = ["pass", "flag", "block"];

/** Options of VerdictCache.open. */
export interface VerdictCacheOpenOptions {
  /** Clock for `checked_at` of a put without one and for `prune({ olderThan })`; defaults to the system clock. */
  readonly clock?: () => Date;
  /** Open for reading only (stats); the file must exist. */
  readonly readonly?: boolean;
  /** Refuse (CacheFileError "missing") instead of creating a cache when the file does not exist. */
  readonly mustExist?: boolean;
  /** Most milliseconds to wait for another process's lock (default 10 s). */
  readonly busyTimeoutMs?: number;
}

/** What `put` stores: a verdict as checked, under an identity, with its state. */
export interface CachePut {
  /** Lowercase hex SHA-256 of the checked text (a segment's or item's UTF-8). */
  readonly textSha256: string;
  /** The identity the check ran under (from pipelineIdentity). */
  readonly identity: CacheIdentity;
  /** The check's state; only pass, flag and block are accepted. */
  readonly state: string;
  /** Whether the check was exercised (canary and analysis both ran); must be true. */
  readonly exercised: boolean;
  /** The verdict and its evidence (prompt_eval_count, ...) as a plain JSON object. */
  readonly value: Readonly<Record<string, unknown>>;
  /** When the check ran (ISO 8601 UTC with milliseconds); defaults to the cache's clock. */
  readonly checkedAt?: string;
}

/** A cache hit: the stored verdict and when it was originally checked. */
export interface CachedVerdict {
  readonly state: CachedState;
  /** The stored value, exactly as given to `put`. */
  readonly value: Record<string, unknown>;
  /** When the verdict was originally checked, not when it was read. */
  readonly checkedAt: string;
}

/** What `putRecord` stores: a record's finished entry under a record key and an identity. */
export interface RecordEntryPut {
  /** Lowercase hex SHA-256 naming the record under the run's settings (the caller derives it). */
  readonly recordKey: string;
  /** The identity the record's verdicts were checked under. */
  readonly identity: CacheIdentity;
  /** The entry's canonical JSON, as the caller will give it back out. */
  readonly entry: string;
  /** The oldest checked_at among the verdicts the entry was built from. */
  readonly oldestCheckedAt: string;
}

/** A stored record entry: its JSON as given to `putRecord` and its oldest verdict's time. */
export interface StoredRecordEntry {
  readonly entry: string;
  readonly oldestCheckedAt: string;
}

/** A stored record entry with its record key and its identity's row id (see `recordEntriesUnder`). */
export interface StoredRecordEntryRow extends StoredRecordEntry {
  readonly recordKey: string;
  readonly identityRowId: number;
}

/** Record keys `recordEntriesUnder` reads at once, at most (SQLite allows far more bound values). */
export const RECORD_KEYS_PER_READ = 512;

/** Stores a row of `table` (its hex digest, then the rest after the identity's row id) under an identity, in one IMMEDIATE transaction. */
type RowWriter = (table: "verdicts" | "record_entries", identity: { key: string; identity: string }, row: readonly [string, ...unknown[]]) => void;

/** A record entry row as SQLite gives it back: `entry` is the packed text (anything, if edited by hand). */
type RecordRow = { entry: unknown; entry_sha256: Buffer; oldest_checked_at: string };

/** Entries and time range of one identity in the cache. */
interface IdentityStats {
  readonly key: string;
  /** The stored identity (null only if its stored text no longer parses). */
  readonly identity: CanaryIdentity | null;
  readonly entries: number;
  readonly oldest_checked_at: string | null;
  readonly newest_checked_at: string | null;
}

/** What `stats` reports (JSON for `little-canary cache stats`). */
export interface CacheStats {
  readonly path: string;
  readonly schema_version: number;
  readonly entries: number;
  readonly by_state: Readonly<Record<CachedState, number>>;
  /** Whole-record entries (each built from verdicts counted in `entries`), pruned with them. */
  readonly record_entries: number;
  /** Bytes on disk: the database file and its write-ahead log. */
  readonly size_bytes: number;
  /** `size_bytes` / `entries`, rounded (null without entries): one verdict's cost on disk, record entries and indexes included. */
  readonly bytes_per_entry: number | null;
  readonly oldest_checked_at: string | null;
  readonly newest_checked_at: string | null;
  readonly identities: readonly IdentityStats[];
}

/** Which entries `prune` removes: those matching every given condition. */
export interface PruneOptions {
  /** Entries checked more than this many milliseconds before the clock's now. */
  readonly olderThan?: number;
  /** Entries of this identity key. */
  readonly identityKey?: string;
  /** Entries of every identity except this key. */
  readonly keepIdentity?: string;
}

/** TimestampSchema's form as a plain pattern: a get checks it on every hit, without zod's cost. */
const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The record entries' table (also what converting a version 1 file adds). */
const RECORD_ENTRIES_SQL = `
CREATE TABLE IF NOT EXISTS record_entries (
  id INTEGER PRIMARY KEY,
  record_key BLOB NOT NULL,
  identity_id INTEGER NOT NULL,
  entry BLOB NOT NULL,
  entry_sha256 BLOB NOT NULL,
  oldest_checked_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS record_entries_by_key ON record_entries (record_key, identity_id);
`;

// Verdicts live in a rowid table (appended in put order) with a unique index on (text digest,
// identity id): a verdict-sized row inside a randomly keyed B-tree would split pages on every put
// and multiply what each commit writes. Digests are stored as 32-byte blobs to keep the index small,
// values packed (stored-json.ts). The age index serves `prune` by age and by size; per-identity
// counts (`stats`, `prune --identity`) scan the table instead of keeping a third index per row.
// Record entries: one finished manifest entry per (record key, identity), built only from verdicts
// of this file, packed; `entry_sha256` is the SHA-256 of the entry's text (a row whose text no
// longer has it reads as a miss); `oldest_checked_at` is its oldest segment's checked_at.
const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS little_canary_cache (schema TEXT NOT NULL, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS identities (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  identity TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
  id INTEGER PRIMARY KEY,
  text_sha256 BLOB NOT NULL,
  identity_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  value BLOB NOT NULL,
  checked_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS verdicts_by_text ON verdicts (text_sha256, identity_id);
CREATE INDEX IF NOT EXISTS verdicts_by_age ON verdicts (checked_at);
${RECORD_ENTRIES_SQL}`;
function hex64(name: string, value: unknown): string {
  if (!isSha256Hex(value)) throw new UsageError(`${name} must be a lowercase hex SHA-256`);
  return value;
}

/** The SQLite verdict cache; see the module header for its guarantees. */
export class VerdictCache {
  /** The file's path as given to `open`. */
  readonly path: string;
  /** True when opened read-only. */
  readonly readonly: boolean;
  readonly #db: Database.Database;
  readonly #clock: () => Date;
  /** Identity keys already checked against their identity's canonical JSON in this process. */
  readonly #knownKeys = new Map<string, string>();
  readonly #get: Database.Statement<[string, Buffer], { state: string; value: unknown; checked_at: string }>;
  /** Null when opened read-only. */
  readonly #write: RowWriter | null;
  /** Null when the file is a version 1 cache opened read-only (it has no record entries). */
  readonly #getRecord: Database.Statement<[number, Buffer], RecordRow> | null;
  /** The text a stored value or entry holds, by the form the file's version stores (null: not one). */
  readonly #storedText: (stored: unknown) => string | null;
  /** The file's schema version (an older one only when opened read-only). */
  readonly #version: number;
  /** Statements of `recordEntriesUnder`, by the number of keys they read. */
  readonly #getRecordsIn = new Map<number, Database.Statement<Buffer[]>>();
  readonly #identityId: Database.Statement<[string], number>;
  /** Row ids of identities seen here. Never reused (AUTOINCREMENT): an id pruned since finds nothing, never another identity's entry. */
  readonly #identityIds = new Map<string, number>();

  private constructor(path: string, db: Database.Database, options: VerdictCacheOpenOptions, found: "current" | "convertible" | "empty") {
    this.path = path;
    // A version 1 or 2 file stores plain JSON text.
    this.#storedText = found === "convertible" ? (stored) => (typeof stored === "string" ? stored : null) : unpackJson;
    this.#version = db.prepare("SELECT version FROM little_canary_cache").pluck().get() as number;
    this.readonly = options.readonly === true;
    this.#db = db;
    this.#clock = options.clock ?? (() => new Date());
    this.#get = db.prepare(
      "SELECT v.state, v.value, v.checked_at FROM identities i JOIN verdicts v ON v.identity_id = i.id WHERE i.key = ? AND v.text_sha256 = ?",
    );
    // A version 1 file opened read-only has no record entries.
    this.#getRecord = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'record_entries'").get()
      ? db.prepare("SELECT entry, entry_sha256, oldest_checked_at FROM record_entries WHERE identity_id = ? AND record_key = ?")
      : null;
    this.#identityId = db.prepare<[string], number>("SELECT id FROM identities WHERE key = ?").pluck();
    if (this.readonly) this.#write = null;
    else {
      const addIdentity = db.prepare("INSERT OR IGNORE INTO identities (key, identity) VALUES (?, ?)");
      const insert = {
        verdicts: db.prepare("INSERT OR REPLACE INTO verdicts (text_sha256, identity_id, state, value, checked_at) VALUES (?, ?, ?, ?, ?)"),
        record_entries: db.prepare(
          "INSERT OR REPLACE INTO record_entries (record_key, identity_id, entry, entry_sha256, oldest_checked_at) VALUES (?, ?, ?, ?, ?)",
        ),
      };
      // IMMEDIATE: take the write lock (waiting for it) before reading anything, so a writer
      // never has to upgrade a read snapshot another process has since made stale.
      this.#write = db.transaction<RowWriter>((table, { key, identity }, [digest, ...rest]) => {
        // Looked up in the transaction every time: a concurrent prune may forget an identity.
        addIdentity.run(key, identity);
        insert[table].run(Buffer.from(digest, "hex"), this.#identityId.get(key), ...rest);
      }).immediate;
    }
  }

  /**
   * Opens (or, unless `mustExist` or `readonly`, creates) the verdict cache at `path`. Throws
   * CacheFileError naming the path for a missing file, a file that is not SQLite, an SQLite
   * database that is not a verdict cache, or a verdict cache of an unknown schema version.
   */
  static open(path: string, options: VerdictCacheOpenOptions = {}): VerdictCache {
    if (typeof path !== "string" || path === "") throw new UsageError("the cache path must be a non-empty string");
    const timeout = options.busyTimeoutMs ?? DEFAULT_CACHE_BUSY_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeout) || timeout < 0) throw new UsageError("busyTimeoutMs must be a non-negative integer");
    const readonly = options.readonly === true;
    if ((readonly || options.mustExist === true) && fileSize(path) === null) {
      throw new CacheFileError("missing", path, `the cache file ${displayText(path)} does not exist`);
    }
    const mayCreate = !readonly && options.mustExist !== true;
    if (mayCreate) assertDirectoryExists(path);
    if (!readonly) assertWritable(path);
    assertSqliteHeader(path, mayCreate);
    let db: Database.Database;
    try {
      db = openSqlite(path, { readonly, fileMustExist: readonly || options.mustExist === true, timeout });
    } catch (error) {
      throw withDirectoryAdvice(sqliteFailure(error, path, "unopenable"), path, readonly);
    }
    try {
      // Inspect before any pragma that writes: a file that is not a verdict cache stays untouched.
      const found = inspectSchema(db, path);
      // A command that needs an existing cache (stats, prune) does not make one of an empty file.
      if (found === "empty" && (readonly || options.mustExist === true)) {
        // SQLite reads a file of no bytes as a database with no tables: to a user it is an empty file.
        const what = fileSize(path)?.size === 0 ? "an empty file (0 bytes)" : "an empty SQLite database";
        throw new CacheFileError("foreign", path, `the file ${displayText(path)} is ${what}, not a little-canary verdict cache`);
      }
      if (!readonly) {
        let converted = false;
        retryWhileBusy(timeout, () => {
          db.pragma("journal_mode = WAL");
          // NORMAL in WAL mode: a committed transaction survives a killed process.
          db.pragma("synchronous = NORMAL");
          // The log is reset after each checkpoint; this caps the file it leaves on disk.
          db.pragma("journal_size_limit = 67108864");
          if (found !== "current") converted = writeSchema(db, path);
        });
        // The old texts' pages are free now: give them back, so the file shrinks (it is the
        // same file either way; a VACUUM another process blocks is left to `cache prune --max-bytes`).
        if (converted) {
          try {
            reclaimSpace(db);
          } catch (error) {
            if (!(error instanceof Database.SqliteError)) throw error;
          }
        }
      }
      return new VerdictCache(path, db, options, readonly ? found : "current");
    } catch (error) {
      db.close();
      throw withDirectoryAdvice(sqliteFailure(error, path, "unopenable"), path, readonly);
    }
  }

  /** The verdict stored for this text under this identity, or null (a miss). */
  get(textSha256: string, identityKey: string): CachedVerdict | null {
    hex64("textSha256", textSha256);
    hex64("identityKey", identityKey);
    const row = inSqlite(this.path, () => this.#get.get(identityKey, Buffer.from(textSha256, "hex")), "unopenable");
    if (row === undefined) return null;
    const text = this.#storedText(row.value);
    const value = text === null ? null : parsePlainObject(text);
    if (!CACHED_STATES.includes(row.state) || value === null || !STORED_TIMESTAMP.test(row.checked_at)) {
      throw this.#corrupt("an entry");
    }
    return { state: row.state as CachedState, value, checkedAt: row.checked_at };
  }

  /**
   * Stores one checked verdict, committed before returning. Throws UncacheableVerdictError for
   * anything but an exercised pass, flag or block, and UsageError for a malformed argument.
   */
  put(entry: CachePut): void {
    if (!CACHED_STATES.includes(entry.state) || entry.exercised !== true) throw new UncacheableVerdictError(entry.state, entry.exercised === true);
    const write = this.#writable();
    const text = hex64("textSha256", entry.textSha256);
    const identity = this.#identity(entry.identity);
    if (!isPlainObject(entry.value)) throw new UsageError("a cached value must be a plain JSON object");
    const value = packJson(canonicalJsonUnchecked(entry.value));
    const checkedAt = entry.checkedAt ?? this.#clock().toISOString();
    if (!TimestampSchema.safeParse(checkedAt).success) throw new UsageError("checkedAt must be an ISO 8601 UTC timestamp with milliseconds");
    inSqlite(this.path, () => write("verdicts", identity, [text, entry.state, value, checkedAt]));
  }

  /** The record entry stored under this record key and identity, or null (a miss). */
  getRecord(recordKey: string, identityKey: string): StoredRecordEntry | null {
    const key = Buffer.from(hex64("recordKey", recordKey), "hex");
    const id = this.identityRowId(identityKey);
    const getRecord = this.#getRecord;
    if (getRecord === null || id === null) return null;
    const row = inSqlite(this.path, () => getRecord.get(id, key), "unopenable");
    return row === undefined ? null : this.#readBack(row);
  }

  /**
   * The row id of the identity with this key, or null when it has none. Ids are never reused,
   * so an id read earlier names the same identity or, once that identity is pruned, none.
   */
  identityRowId(identityKey: string): number | null {
    hex64("identityKey", identityKey);
    let id = this.#identityIds.get(identityKey);
    if (id === undefined) {
      id = inSqlite(this.path, () => this.#identityId.get(identityKey), "unopenable");
      if (id === undefined) return null;
      this.#identityIds.set(identityKey, id);
    }
    return id;
  }

  /**
   * The record entries stored under any of `recordKeys` (at most RECORD_KEYS_PER_READ of them),
   * whatever their identity: up to `perKey` for each key, in identity row id order. An entry
   * whose text no longer has its SHA-256 is left out. For reading entries before the run's
   * identity is known (record-prefetch.ts); one statement for the lot is far cheaper than one each.
   */
  recordEntriesUnder(recordKeys: readonly string[], perKey: number): StoredRecordEntryRow[] {
    if (!Number.isSafeInteger(perKey) || perKey < 1) throw new UsageError("perKey must be a positive integer");
    if (recordKeys.length > RECORD_KEYS_PER_READ) throw new UsageError(`at most ${RECORD_KEYS_PER_READ} record keys are read at once`);
    if (this.#getRecord === null || recordKeys.length === 0) return [];
    const keys = recordKeys.map((key) => Buffer.from(hex64("recordKey", key), "hex"));
    const entries: StoredRecordEntryRow[] = [];
    return inSqlite(
      this.path,
      () => {
        let statement = this.#getRecordsIn.get(keys.length);
        if (statement === undefined) {
          statement = this.#db.prepare(
            `SELECT record_key, identity_id, entry, entry_sha256, oldest_checked_at FROM record_entries WHERE record_key IN (${keys.map(() => "?").join(", ")}) ORDER BY record_key, identity_id`,
          );
          this.#getRecordsIn.set(keys.length, statement);
        }
        let last: Buffer | null = null;
        let taken = 0;
        for (const row of statement.iterate(...keys) as IterableIterator<RecordRow & { record_key: Buffer; identity_id: number }>) {
          taken = last?.equals(row.record_key) ? taken + 1 : 1;
          last = row.record_key;
          if (taken > perKey) continue;
          const stored = this.#readBack(row);
          if (stored !== null) entries.push({ ...stored, recordKey: row.record_key.toString("hex"), identityRowId: row.identity_id });
        }
        return entries;
      },
      "unopenable",
    );
  }

  /** A record entry row as stored, or null when its text does not unpack or no longer has its SHA-256; throws for a row that does not read back. */
  #readBack(row: RecordRow): StoredRecordEntry | null {
    if (!STORED_TIMESTAMP.test(row.oldest_checked_at)) throw this.#corrupt("a record entry");
    // Not the text that was written (edited, or damaged): a miss, and the record is rebuilt.
    const entry = this.#storedText(row.entry);
    if (entry === null || !Buffer.isBuffer(row.entry_sha256) || !hash("sha256", entry, "buffer").equals(row.entry_sha256)) return null;
    return { entry, oldestCheckedAt: row.oldest_checked_at };
  }

  /** Stores one record entry, committed before returning (replacing one under the same key). */
  putRecord(put: RecordEntryPut): void {
    const write = this.#writable();
    const recordKey = hex64("recordKey", put.recordKey);
    const identity = this.#identity(put.identity);
    if (typeof put.entry !== "string" || put.entry === "") throw new UsageError("a record entry must be a non-empty string");
    if (!TimestampSchema.safeParse(put.oldestCheckedAt).success) throw new UsageError("oldestCheckedAt must be an ISO 8601 UTC timestamp with milliseconds");
    inSqlite(this.path, () => write("record_entries", identity, [recordKey, packJson(put.entry), hash("sha256", put.entry, "buffer"), put.oldestCheckedAt]));
  }

  /** Entry counts (overall, per state, per identity), time range and size on disk, by SQL aggregates. */
  stats(): CacheStats {
    return inSqlite(
      this.path,
      () => {
        const total = this.#db
          .prepare(
            `SELECT count(*) AS entries, min(checked_at) AS oldest, max(checked_at) AS newest,
             sum(state = 'pass') AS pass, sum(state = 'flag') AS flag, sum(state = 'block') AS block FROM verdicts`,
          )
          .get() as { entries: number; oldest: string | null; newest: string | null; pass: number | null; flag: number | null; block: number | null };
        // Columns in the order `IdentityStats` lists them.
        const rows = this.#db
          .prepare(
            `SELECT i.key AS key, i.identity AS identity, count(v.id) AS entries,
             min(v.checked_at) AS oldest_checked_at, max(v.checked_at) AS newest_checked_at
           FROM identities i LEFT JOIN verdicts v ON v.identity_id = i.id GROUP BY i.id ORDER BY i.key`,
          )
          .all() as Array<Omit<IdentityStats, "identity"> & { identity: string }>;
        const records = this.#getRecord === null ? 0 : (this.#db.prepare("SELECT count(*) FROM record_entries").pluck().get() as number);
        const size = this.#bytesOnDisk();
        return {
          path: this.path,
          schema_version: this.#version,
          entries: total.entries,
          by_state: { pass: total.pass ?? 0, flag: total.flag ?? 0, block: total.block ?? 0 },
          record_entries: records,
          size_bytes: size,
          bytes_per_entry: total.entries === 0 ? null : Math.round(size / total.entries),
          oldest_checked_at: total.oldest,
          newest_checked_at: total.newest,
          identities: rows.map(({ key, identity, ...counts }) => ({ key, identity: parsePlainObject(identity) as CanaryIdentity | null, ...counts })),
        };
      },
      "unopenable",
    );
  }

  /**
   * Removes the entries matching every given condition and returns how many were removed;
   * identities left without entries are forgotten too. Throws UsageError when no condition is given.
   */
  prune(options: PruneOptions): number {
    this.#writable();
    // AGE stands for the age column: a record entry is as old as the oldest verdict it was built from.
    const conditions: Array<readonly [sql: string, param: string]> = [];
    if (options.olderThan !== undefined) {
      if (typeof options.olderThan !== "number" || !Number.isFinite(options.olderThan) || options.olderThan < 0) {
        throw new UsageError("olderThan must be a non-negative number of milliseconds");
      }
      conditions.push(["AGE < ?", new Date(this.#clock().getTime() - options.olderThan).toISOString()]);
    }
    if (options.identityKey !== undefined)
      conditions.push(["identity_id IN (SELECT id FROM identities WHERE key = ?)", hex64("identityKey", options.identityKey)]);
    if (options.keepIdentity !== undefined)
      conditions.push(["identity_id NOT IN (SELECT id FROM identities WHERE key = ?)", hex64("keepIdentity", options.keepIdentity)]);
    if (conditions.length === 0) throw new UsageError("prune needs a condition: olderThan, identityKey or keepIdentity");
    const condition = conditions.map(([sql]) => sql).join(" AND ");
    const params = conditions.map(([, param]) => param);
    const prune = this.#db.transaction(() => {
      const removed = this.#db.prepare(`DELETE FROM verdicts WHERE ${condition.replace("AGE", "checked_at")}`).run(...params).changes;
      this.#db.prepare(`DELETE FROM record_entries WHERE ${condition.replace("AGE", "oldest_checked_at")}`).run(...params);
      this.#forgetOrphans();
      return removed;
    });
    return inSqlite(this.path, () => prune.immediate());
  }

  /**
   * Removes the oldest checked entries (by `checked_at`, then put order), with the record entries
   * built on them, until the file holds at most `maxBytes`, and gives the freed pages back
   * (VACUUM) so that the file on disk shrinks. A hit does not make an entry younger: reads never
   * write. Returns how many entries it removed and the bytes on disk after (the database and its
   * write-ahead log, as `stats` counts them). Throws UsageError for a `maxBytes` below
   * MIN_CACHE_FILE_BYTES (an empty cache file alone takes about 40 KiB).
   */
  pruneToSize(maxBytes: number): { readonly removed: number; readonly sizeBytes: number } {
    this.#writable();
    if (!Number.isSafeInteger(maxBytes) || maxBytes < MIN_CACHE_FILE_BYTES) {
      throw new UsageError(`maxBytes must be a whole number of bytes, at least ${MIN_CACHE_FILE_BYTES}`);
    }
    return inSqlite(this.path, () => {
      const pageSize = this.#db.pragma("page_size", { simple: true }) as number;
      // After a VACUUM, the pages in use are what the file holds once the log is checkpointed.
      const compacted = (): number => (this.#db.pragma("page_count", { simple: true }) as number) * pageSize;
      const count = this.#db.prepare("SELECT count(*) FROM verdicts").pluck();
      let removed = 0;
      if (this.#bytesOnDisk() <= maxBytes) return { removed, sizeBytes: this.#bytesOnDisk() };
      reclaimSpace(this.#db);
      // Each round removes at least one entry, so the loop ends; a round's estimate counts the
      // schema's own pages as the entries', so it removes no more than needed, and a later round
      // takes what the first left. After three rounds it doubles its take each round.
      for (let round = 0; compacted() > maxBytes; round++) {
        const entries = count.get() as number;
        if (entries === 0) break;
        const size = compacted();
        const take = Math.ceil(((size - maxBytes) * entries) / size) * 2 ** Math.max(0, round - 2);
        removed += this.#removeOldest(Math.min(entries, Math.max(1, take)));
        reclaimSpace(this.#db);
      }
      return { removed, sizeBytes: this.#bytesOnDisk() };
    });
  }

  /** Removes the `count` oldest checked entries and the record entries as old as the youngest of them, in one transaction. */
  #removeOldest(count: number): number {
    const remove = this.#db.transaction((): number => {
      const cutoff = this.#db
        .prepare("SELECT checked_at FROM verdicts ORDER BY checked_at, id LIMIT 1 OFFSET ?")
        .pluck()
        .get(count - 1);
      if (typeof cutoff !== "string") return 0;
      const removed = this.#db.prepare("DELETE FROM verdicts WHERE id IN (SELECT id FROM verdicts ORDER BY checked_at, id LIMIT ?)").run(count).changes;
      // A record entry is as old as the oldest verdict it was built from.
      this.#db.prepare("DELETE FROM record_entries WHERE oldest_checked_at <= ?").run(cutoff);
      this.#forgetOrphans();
      return removed;
    });
    return remove.immediate();
  }

  /** Forgets identities left without verdicts, and the record entries stored under them. */
  #forgetOrphans(): void {
    this.#db.prepare("DELETE FROM identities WHERE NOT EXISTS (SELECT 1 FROM verdicts WHERE verdicts.identity_id = identities.id)").run();
    // An identity without verdicts has nothing its record entries could rest on.
    this.#db.prepare("DELETE FROM record_entries WHERE identity_id NOT IN (SELECT id FROM identities)").run();
  }

  /** Bytes on disk: the database file and its write-ahead log. */
  #bytesOnDisk(): number {
    return (fileSize(this.path)?.size ?? 0) + (fileSize(`${this.path}-wal`)?.size ?? 0);
  }

  /** Closes the file (idempotent). Every completed put is already committed. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** The row writer; throws UsageError when the file was opened read-only. */
  #writable(): RowWriter {
    if (this.#write === null) throw new UsageError(`the cache file ${displayText(this.path)} was opened read-only`);
    return this.#write;
  }

  /** A stored row (`what`) that does not read back as it was written. */
  #corrupt(what: string): CacheFileError {
    const message = `the cache file ${displayText(this.path)} holds ${what} that does not read back; prune it or use a new cache`;
    return new CacheFileError("corrupt_entry", this.path, message);
  }

  /** The key and canonical JSON of an identity, after checking once that its key is its SHA-256. */
  #identity(identity: CacheIdentity): { key: string; identity: string } {
    const key = hex64("identity key", identity?.key);
    const known = this.#knownKeys.get(key);
    if (known !== undefined) return { key, identity: known };
    const text = canonicalJsonUnchecked(identity.identity);
    if (identityKey(identity.identity) !== key) throw new UsageError("the identity key is not the SHA-256 of the identity");
    this.#knownKeys.set(key, text);
    return { key, identity: text };
  }
}

/** The plain object `text` holds as JSON, or null (not JSON, or not an object). */
function parsePlainObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** Whether the database holds a verdict cache of our schema, of an older one we convert, or nothing at all; throws for anything else. */
function inspectSchema(db: Database.Database, path: string): "current" | "convertible" | "empty" {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
  if (tables.length === 0) return "empty";
  if (!tables.includes("little_canary_cache")) {
    throw new CacheFileError("foreign", path, `the file ${displayText(path)} is an SQLite database but not a little-canary verdict cache; give another path`);
  }
  const rows = db.prepare("SELECT schema, version FROM little_canary_cache").all() as Array<{ schema: unknown; version: unknown }>;
  const row = rows[0];
  if (rows.length !== 1 || row === undefined || row.schema !== VERDICT_CACHE_SCHEMA) {
    throw new CacheFileError("foreign", path, `the file ${displayText(path)} has no valid little-canary verdict cache schema record`);
  }
  if (CONVERTIBLE_SCHEMA_VERSIONS.includes(row.version)) return "convertible";
  if (row.version !== VERDICT_CACHE_SCHEMA_VERSION) {
    throw new CacheFileError(
      "unknown_schema",
      path,
      `the verdict cache ${displayText(path)} has schema version ${String(row.version).slice(0, 20)}; this little-canary reads version ${VERDICT_CACHE_SCHEMA_VERSION} (use a new cache file, or the little-canary that wrote it)`,
    );
  }
  return "current";
}

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, for at most `timeoutMs`. Two processes that
 * open one new file at once both switch it to WAL: a switch needs the file to itself, and SQLite
 * answers one of them SQLITE_BUSY at once, without waiting on the busy timeout, when each holds
 * a read lock the other must wait for. Every step is idempotent (the schema is created or
 * upgraded once, under the write lock), so trying again after the other is done is safe.
 */
function retryWhileBusy(timeoutMs: number, step: () => void): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      const busy = error instanceof Database.SqliteError && (error.code === "SQLITE_BUSY" || error.code.startsWith("SQLITE_BUSY_"));
      if (!busy || Date.now() >= deadline) throw error;
      // A short synchronous pause: open() is synchronous, and the other process needs only
      // the few milliseconds its own switch takes.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

/**
 * Creates the schema in an empty database, or converts a version 1 or 2 cache to version 3, under
 * SQLite's write lock in one transaction, so two processes opening one file do it once and a killed
 * conversion leaves the old file as it was. Converting packs values and record entries (their texts,
 * and so the entries' SHA-256, unchanged), adds the record entries' table to a version 1 file and
 * drops the indexes version 3 does without. Returns whether it converted anything.
 */
function writeSchema(db: Database.Database, path: string): boolean {
  db.function("little_canary_pack", { deterministic: true }, (text: unknown) => packJson(String(text)));
  return db
    .transaction(() => {
      // Another process may have created or converted it between the look and the lock.
      const found = inspectSchema(db, path);
      if (found === "empty") {
        db.exec(SCHEMA_SQL);
        db.prepare("INSERT INTO little_canary_cache (schema, version) VALUES (?, ?)").run(VERDICT_CACHE_SCHEMA, VERDICT_CACHE_SCHEMA_VERSION);
      }
      if (found !== "convertible") return false;
      db.exec(RECORD_ENTRIES_SQL);
      db.exec("UPDATE verdicts SET value = little_canary_pack(value) WHERE typeof(value) = 'text'");
      db.exec("UPDATE record_entries SET entry = little_canary_pack(entry) WHERE typeof(entry) = 'text'");
      db.exec("DROP INDEX IF EXISTS verdicts_by_identity; DROP INDEX IF EXISTS record_entries_by_age;");
      db.prepare("UPDATE little_canary_cache SET version = ?").run(VERDICT_CACHE_SCHEMA_VERSION);
      return true;
    })
    .immediate();
}

/**
 * Gives the file back the pages it no longer uses (VACUUM), then empties the write-ahead log into
 * it, so the file on disk shrinks. A reader of another process can keep the log from emptying;
 * it is emptied at a later checkpoint.
 */
function reclaimSpace(db: Database.Database): void {
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/** The cache file could not be read (stat'ed or opened): named with the error's code. */
function unreadableCacheFile(path: string, error: unknown): CacheFileError {
  return new CacheFileError("unopenable", path, `cannot read the cache file ${displayText(path)} (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
    cause: error,
  });
}

/** Whether the file at `path` exists (as anything) and its size; null when it does not exist. */
function fileSize(path: string): { readonly size: number; readonly isFile: boolean } | null {
  try {
    const stat = statSync(path);
    return { size: stat.size, isFile: stat.isFile() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw unreadableCacheFile(path, error);
  }
}

/** Refuses a cache to be created in a directory that does not exist (an existing file passes). */
function assertDirectoryExists(path: string): void {
  if (fileSize(path) !== null) return;
  // SQLite creates the file, never its directory; better-sqlite3 says so in a bare TypeError.
  const directory = dirname(path);
  if (statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true) return;
  throw new CacheFileError(
    "unopenable",
    path,
    `the cache file ${displayText(path)} cannot be created: its directory ${displayText(directory)} does not exist; create it or give another path`,
  );
}

/** Refuses a non-empty file whose first bytes are not SQLite's (a text file, a JSON manifest, ...); `mayCreate` words the fix. */
function assertSqliteHeader(path: string, mayCreate: boolean): void {
  const found = fileSize(path);
  if (found === null) return;
  // Before the size: a device reads as empty, and SQLite would then leave a journal beside it.
  if (!found.isFile) throw new CacheFileError("unopenable", path, `the cache path ${displayText(path)} is not a regular file`);
  if (found.size === 0) return;
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  let read = 0;
  try {
    const fd = openSync(path, "r");
    try {
      read = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw unreadableCacheFile(path, error);
  }
  if (read < header.length || !header.equals(SQLITE_MAGIC)) {
    // A command that only reads a cache (stats, prune) cannot be given a new path.
    const fix = mayCreate ? "give a new path or an existing verdict cache" : "give the path of an existing verdict cache";
    throw new CacheFileError("not_sqlite", path, `the cache file ${displayText(path)} is not an SQLite database; ${fix}`);
  }
}

const PROBLEM_OF_CODE: Readonly<Record<string, CacheFileProblem>> = {
  SQLITE_NOTADB: "not_sqlite",
  SQLITE_CORRUPT: "not_sqlite",
  SQLITE_BUSY: "busy",
  SQLITE_LOCKED: "busy",
  SQLITE_CANTOPEN: "unopenable",
  SQLITE_PERM: "unopenable",
  SQLITE_AUTH: "unopenable",
};

/** How a message names a verdict cache file (an id index has its own label). */
const CACHE_FILE_LABEL = "the cache file";

/**
 * A CacheFileError for an error SQLite threw while using the file at `path` (other errors pass
 * through); `label` is what the message calls the file (ingest's id index is not a cache).
 */
export function sqliteFailure(error: unknown, path: string, fallback: CacheFileProblem = "write_failed", label = CACHE_FILE_LABEL): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_CANTOPEN_ISDIR, ...) map like their primary code.
  const problem = PROBLEM_OF_CODE[error.code] ?? Object.entries(PROBLEM_OF_CODE).find(([code]) => error.code.startsWith(`${code}_`))?.[1] ?? fallback;
  // A full disk under the verdict cache has fixes of its own (not a prune: its VACUUM needs room too).
  const advice =
    error.code.startsWith("SQLITE_FULL") && label === CACHE_FILE_LABEL
      ? ": the disk is full; free space on it, move the cache file to a disk with room (a prune needs room to work), or run without --cache"
      : "";
  return new CacheFileError(problem, path, `${label} ${displayText(path)} ${CACHE_FILE_PROBLEMS[problem]} (${error.code})${advice}`, { cause: error });
}

/**
 * `error` with what to do when the file could not be opened because its directory takes no new
 * files (a read-only mount, no permission): SQLite keeps `PATH-wal` and `PATH-shm` beside a cache in
 * write-ahead-log mode and must create the `-shm` file even to read one.
 */
function withDirectoryAdvice(error: unknown, path: string, readonly: boolean): unknown {
  if (!(error instanceof CacheFileError) || error.problem !== "unopenable" || !isRegularFile(path) || directoryTakesFiles(path)) return error;
  const where = "its directory takes no new files here (a read-only mount, or no write permission)";
  const advice = readonly
    ? `${where}, and SQLite must create ${displayText(`${path}-shm`)} beside the cache to read it; copy the file to a writable directory and run the command on the copy`
    : `${where}, and a cache needs a writable directory (SQLite keeps its -wal and -shm files beside it); put the cache in a writable directory`;
  return new CacheFileError("unopenable", path, `${error.message}: ${advice}`, { cause: error.cause ?? error });
}

/**
 * A cache opened to store verdicts must take writes: SQLite opens a write-protected file, or one
 * on a read-only mount, read-only without a word, and the first verdict stored would then fail in
 * the middle of a run (after an ingest --overwrite had removed the previous pair). So a run that
 * would store nothing (every verdict cached) is refused too. A file that does not exist yet is created.
 */
function assertWritable(path: string): void {
  if (!isRegularFile(path)) return;
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "not writable";
    // Making the file writable is no fix when its directory takes no files either (SQLite keeps its -wal and -shm there).
    const fix =
      code === "EROFS"
        ? "it is on a read-only file system, and a run stores the verdicts it gets in it; copy it to a writable directory and name the copy"
        : directoryTakesFiles(path)
          ? "a run stores the verdicts it gets there; make the file writable, or name another cache file"
          : "a run stores the verdicts it gets there, and its directory takes no new files either (SQLite keeps its -wal and -shm files beside it); copy it to a writable directory and name the copy";
    throw new CacheFileError("write_failed", path, `the cache file ${displayText(path)} is not writable (${code}): ${fix}`, { cause: error });
  }
}

/** Whether `path` is a regular file (false when it cannot be looked at). */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether the directory holding `path` takes new files (false on a read-only mount, or without permission). */
function directoryTakesFiles(path: string): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `step()`, with an error SQLite throws turned into sqliteFailure's CacheFileError for `path`. */
export function inSqlite<T>(path: string, step: () => T, fallback?: CacheFileProblem, label?: string): T {
  try {
    return step();
  } catch (error) {
    throw sqliteFailure(error, path, fallback, label);
  }
}
