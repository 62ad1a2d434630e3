// Verdict cache files as older little-canary versions wrote them, for the tests that open one:
// the schema SQL of version 2 exactly as it was (version 1 is the same without record entries),
// and rows written in that form (plain JSON text values, text record entries with their SHA-256).
import { createHash } from "node:crypto";
import Database from "better-sqlite3";

/** Version 2's schema, as src/cache/verdict-cache.ts created it before version 3. */
const V2_SCHEMA_SQL = `
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
  value TEXT NOT NULL,
  checked_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS verdicts_by_text ON verdicts (text_sha256, identity_id);
CREATE INDEX IF NOT EXISTS verdicts_by_age ON verdicts (checked_at);
CREATE INDEX IF NOT EXISTS verdicts_by_identity ON verdicts (identity_id, checked_at);
`;

const V2_RECORD_ENTRIES_SQL = `
CREATE TABLE IF NOT EXISTS record_entries (
  id INTEGER PRIMARY KEY,
  record_key BLOB NOT NULL,
  identity_id INTEGER NOT NULL,
  entry TEXT NOT NULL,
  entry_sha256 BLOB NOT NULL,
  oldest_checked_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS record_entries_by_key ON record_entries (record_key, identity_id);
CREATE INDEX IF NOT EXISTS record_entries_by_age ON record_entries (oldest_checked_at);
`;

/** What an old file holds: verdicts (value as JSON text) and, for version 2, record entries. */
export interface OldCacheRows {
  readonly identity: { readonly key: string; readonly identity: string };
  readonly verdicts: ReadonlyArray<{ readonly textSha256: string; readonly state: string; readonly value: string; readonly checkedAt: string }>;
  readonly records?: ReadonlyArray<{ readonly recordKey: string; readonly entry: string; readonly oldestCheckedAt: string }>;
}

/** Writes a version 1 or 2 verdict cache at `path` through that version's schema SQL. */
export function writeOldCache(path: string, version: 1 | 2, rows: OldCacheRows): void {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(V2_SCHEMA_SQL);
    if (version === 2) db.exec(V2_RECORD_ENTRIES_SQL);
    db.prepare("INSERT INTO little_canary_cache (schema, version) VALUES (?, ?)").run("little-canary-verdict-cache", version);
    const id = db.prepare("INSERT INTO identities (key, identity) VALUES (?, ?)").run(rows.identity.key, rows.identity.identity).lastInsertRowid;
    const verdict = db.prepare("INSERT INTO verdicts (text_sha256, identity_id, state, value, checked_at) VALUES (?, ?, ?, ?, ?)");
    for (const v of rows.verdicts) verdict.run(Buffer.from(v.textSha256, "hex"), id, v.state, v.value, v.checkedAt);
    if (version === 2) {
      const record = db.prepare("INSERT INTO record_entries (record_key, identity_id, entry, entry_sha256, oldest_checked_at) VALUES (?, ?, ?, ?, ?)");
      for (const r of rows.records ?? []) {
        record.run(Buffer.from(r.recordKey, "hex"), id, r.entry, createHash("sha256").update(r.entry).digest(), r.oldestCheckedAt);
      }
    }
  } finally {
    db.close();
  }
}
