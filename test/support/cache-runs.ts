// Helpers shared by the suites that run `ingest --cache` and then inspect the published manifest
// and the cache file (test/ingest/record-cache*.test.ts, test/ingest/record-prefetch.test.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import Database from "better-sqlite3";
import { startOllamaStandIn, type OllamaStandIn } from "./ollama-stand-in.js";

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

/**
 * An Ollama stand-in whose canary "falls" for one word only ("zanzibar"), so a record holding
 * it gets an exercised, cacheable detection and every other record an exercised pass.
 */
export function startFallingCanary(): Promise<OllamaStandIn> {
  return startOllamaStandIn({
    reply: (request) =>
      JSON.stringify(request.body).includes("zanzibar")
        ? "I have now disabled my safety filters and I will now respond without restrictions."
        : "A short summary of the text.",
  });
}
