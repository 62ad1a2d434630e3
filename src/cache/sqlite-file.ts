// Opening an SQLite file for the verdict cache: refuse what is not an SQLite database before
// SQLite touches it, and turn SQLite's errors into CacheFileError values that name the path.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { CACHE_FILE_PROBLEMS, CacheFileError, type CacheFileProblem } from "./errors.js";
import { displayText } from "../core/display-text.js";

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/** Whether the file at `path` exists (as anything) and its size; null when it does not exist. */
export function fileSize(path: string): { readonly size: number; readonly isFile: boolean } | null {
  try {
    const stat = statSync(path);
    return { size: stat.size, isFile: stat.isFile() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CacheFileError("unopenable", path, `cannot read the cache file ${displayText(path)} (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
      cause: error,
    });
  }
}

/** Refuses a non-empty file whose first bytes are not SQLite's (a text file, a JSON manifest, ...). */
export function assertSqliteHeader(path: string): void {
  const found = fileSize(path);
  if (found === null || found.size === 0) return;
  if (!found.isFile) throw new CacheFileError("unopenable", path, `the cache path ${displayText(path)} is not a regular file`);
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  let read = 0;
  const fd = openSync(path, "r");
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (read < header.length || !header.equals(SQLITE_MAGIC)) {
    throw new CacheFileError("not_sqlite", path, `the cache file ${displayText(path)} is not an SQLite database; give a new path or an existing verdict cache`);
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

/** A CacheFileError for an error SQLite threw while using the file at `path` (other errors pass through). */
export function sqliteFailure(error: unknown, path: string, fallback: CacheFileProblem = "write_failed"): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_CANTOPEN_ISDIR, ...) map like their primary code.
  const problem = PROBLEM_OF_CODE[error.code] ?? Object.entries(PROBLEM_OF_CODE).find(([code]) => error.code.startsWith(`${code}_`))?.[1] ?? fallback;
  return new CacheFileError(problem, path, `the cache file ${displayText(path)} ${CACHE_FILE_PROBLEMS[problem]} (${error.code})`, { cause: error });
}

/** `step()`, with an error SQLite throws turned into sqliteFailure's CacheFileError for `path`. */
export function inSqlite<T>(path: string, step: () => T, fallback?: CacheFileProblem): T {
  try {
    return step();
  } catch (error) {
    throw sqliteFailure(error, path, fallback);
  }
}
