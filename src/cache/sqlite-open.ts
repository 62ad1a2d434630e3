// The one place a SQLite database is opened (the verdict cache and the per-run index of record
// ids). better-sqlite3 loads its native addon on the first open, not on import, so an install that
// skipped its build step (`npm install --ignore-scripts`) or a Node.js other than the one it was
// built for fails here, with a message about binding files that says nothing to a user. That
// failure is turned into a ConfigError that says what is missing and how to fix it.
import Database from "better-sqlite3";
import { ConfigError } from "../core/errors.js";

/** What a user is told when the addon cannot be loaded: every run of `ingest` and every `--cache` needs it. */
export const SQLITE_ADDON_MISSING =
  "the SQLite addon (better-sqlite3) could not be loaded: it was not built for this Node.js " +
  "(an install with --ignore-scripts, or a Node.js version changed since); ingest keeps its record ids " +
  "and --cache its verdicts in SQLite. fix: run `npm rebuild better-sqlite3` where little-canary is installed, " +
  "with install scripts allowed";

/** Opens the database at `path` with better-sqlite3; an addon that cannot be loaded is a ConfigError. */
export function openSqlite(path: string, options?: Database.Options): Database.Database {
  try {
    return new Database(path, options);
  } catch (error) {
    if (isAddonLoadFailure(error)) throw new ConfigError(SQLITE_ADDON_MISSING, { cause: error });
    throw error;
  }
}

/**
 * Whether `error` is the addon failing to load rather than the database failing to open: the
 * `bindings` package's "Could not locate the bindings file", or Node's dlopen failure (a build
 * for another Node.js ABI, a missing or broken shared object).
 */
function isAddonLoadFailure(error: unknown): boolean {
  if (error instanceof Database.SqliteError || !(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === "ERR_DLOPEN_FAILED" || /could not locate the bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/i.test(error.message);
}
