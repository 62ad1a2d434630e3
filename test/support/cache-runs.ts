// Helpers shared by the suites that run `ingest --cache` through the CLI and then inspect the
// published manifest and the cache file (test/ingest/record-cache*.test.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** The manifest without its run times, which differ between any two runs. */
export function timeless(manifest: Json): Json {
  const { started_at: _started, finished_at: _finished, ...rest } = manifest;
  return rest;
}

/** `name` in `dir`, parsed as JSON. */
export async function readJson(dir: string, name: string): Promise<Json> {
  return JSON.parse(await readFile(join(dir, name), "utf8")) as Json;
}

/** Runs `fn` on the SQLite file at `path`, opened for writing, and closes it afterwards. */
export function withSqlite<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
