// What `cache stats` prints for a person: a short summary and one aligned row per identity, with
// sizes in binary units and times to the second. `--json` prints the CacheStats document instead,
// unchanged. Every string read from the cache file (its path, identity keys, model names,
// providers, scopes, modes, timestamps) may hold anything (a cache restored from a CI cache is
// the user's to trust, not ours), so any that is not plain printable ASCII is printed quoted
// with every control, separator and bidi character escaped, never raw.
import type { CacheStats } from "../src/cache/verdict-cache.js";
import { quotedText } from "../src/core/display-text.js";
import { plural } from "./plural.js";

const UNITS = ["KiB", "MiB", "GiB", "TiB"] as const;

/** `512 B`, `48.0 KiB`, `1.2 GiB`: bytes in the largest binary unit that keeps the number ≥ 1. */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = "B";
  for (const next of UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

/** `2026-12-02 04:55:12Z` from a stored ISO timestamp; `-` when there is none; anything else quoted (`shown`). */
function when(iso: string | null): string {
  if (iso === null) return "-";
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z` : shown(iso);
}

/**
 * Plain printable ASCII as it is; anything else (a value of another type too) quoted with every
 * control, separator and bidi character escaped, so none reaches a terminal or a CI log raw.
 */
function shown(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  return /^[\x21-\x7e]+$/.test(text) ? text : quotedText(text);
}

/** Rows laid out in columns two spaces apart; columns named in `right` are right-aligned (numbers). */
function columns(rows: readonly (readonly string[])[], right: ReadonlySet<number>): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? "")].length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => {
        const pad = " ".repeat((widths[column] ?? 0) - [...cell].length);
        return right.has(column) ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd(),
  );
}

/** The human-readable `cache stats` report, ending with a newline. */
export function cacheStatsTable(stats: CacheStats): string {
  const { pass, flag, block } = stats.by_state;
  const lines = [
    `verdict cache ${shown(stats.path)} (schema ${stats.schema_version}, ${humanBytes(stats.size_bytes)} on disk${stats.bytes_per_entry === null ? "" : `, ${humanBytes(stats.bytes_per_entry)} per entry`})`,
    `entries: ${stats.entries} (pass ${pass}, flag ${flag}, block ${block}); whole-record entries: ${stats.record_entries}`,
  ];
  if (stats.entries === 0 && stats.identities.length === 0) return `${lines.join("\n")}\n`;
  lines.push(`checked: ${when(stats.oldest_checked_at)} to ${when(stats.newest_checked_at)}`, "");
  const header = ["identity key", "model", "provider", "scope", "mode", "entries", "oldest checked", "newest checked"];
  const rows = stats.identities.map((entry) => [
    shown(entry.key),
    entry.identity === null ? "(unreadable)" : shown(entry.identity.model),
    shown(entry.identity?.provider ?? "-"),
    shown(entry.identity?.scope ?? "-"),
    shown(entry.identity?.mode ?? "-"),
    String(entry.entries),
    when(entry.oldest_checked_at),
    when(entry.newest_checked_at),
  ]);
  lines.push(...columns([header, ...rows], new Set([5])));
  lines.push("", `${plural(stats.identities.length, "identity", "identities")}; \`cache prune --identity KEY\` removes one, \`--json\` prints all fields`);
  return `${lines.join("\n")}\n`;
}
