// `little-canary cache stats|prune` in-process: a table (stats) or JSON (stats --json, prune) on
// stdout, refusals on stderr naming the flag or the file, and the refused exit code (2) for usage
// errors and unusable files.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { cachePrune, cacheStats, parseByteSize, parseDuration } from "../../src/verbs/cache.js";
import { humanBytes } from "../../cli/cache-stats-output.js";
import { VerdictCache } from "../../src/cache/verdict-cache.js";
import { sha256Hex } from "../../src/core/hash.js";
import { testIdentity } from "../support/cache-identity.js";
import { runCli } from "../support/cli.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-cache-cli-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ID = testIdentity();
const OTHER = testIdentity("llama3.2:3b");

/** A cache with 3 entries of ID checked 40, 20 and 1 days ago, and 1 of OTHER checked now. */
function seed(): string {
  const path = join(dir, "verdicts.sqlite");
  const cache = VerdictCache.open(path);
  const day = 86_400_000;
  for (const [n, age] of [
    [1, 40],
    [2, 20],
    [3, 1],
  ] as const) {
    cache.put({
      textSha256: sha256Hex(`t${n}`),
      identity: ID,
      state: "pass",
      exercised: true,
      value: { n },
      checkedAt: new Date(Date.now() - age * day).toISOString(),
    });
  }
  cache.put({ textSha256: sha256Hex("t1"), identity: OTHER, state: "flag", exercised: true, value: {} });
  cache.close();
  return path;
}

describe("cache CLI", () => {
  it("cache stats --json prints the entries per identity as JSON (relative path against cwd)", async () => {
    seed();
    const run = await runCli(["cache", "stats", "--cache", "verdicts.sqlite", "--json"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const stats = JSON.parse(run.stdout);
    expect(stats).toMatchObject({ path: join(dir, "verdicts.sqlite"), entries: 4, by_state: { pass: 3, flag: 1, block: 0 } });
    expect(stats.identities.map((i: { key: string; entries: number }) => [i.key, i.entries]).sort()).toEqual(
      [
        [ID.key, 3],
        [OTHER.key, 1],
      ].sort(),
    );
    expect(stats.identities.find((i: { key: string }) => i.key === ID.key).identity.model).toBe("qwen2.5:1.5b");
    // The document is exactly the library's CacheStats, one line, as it was before the table.
    expect(run.stdout).toBe(`${JSON.stringify(cacheStats({ cache: "verdicts.sqlite", cwd: dir }))}\n`);
  });

  it("cache stats prints a table: the totals, then one aligned row per identity with its full key, sizes in binary units", async () => {
    seed();
    const run = await runCli(["cache", "stats", "--cache", "verdicts.sqlite"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(() => JSON.parse(run.stdout)).toThrow();
    const lines = run.stdout.split("\n");
    const title = `verdict cache ${join(dir, "verdicts.sqlite")} `;
    expect(lines[0]?.startsWith(title)).toBe(true);
    expect(lines[0]?.slice(title.length)).toMatch(/^\(schema \d+, \d+\.\d (KiB|MiB) on disk, (\d+ B|\d+\.\d KiB) per entry\)$/);
    expect(lines[1]).toBe("entries: 4 (pass 3, flag 1, block 0); whole-record entries: 0");
    expect(lines[2]).toMatch(/^checked: \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ to \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    const header = lines[4] ?? "";
    expect(header).toMatch(/^identity key +model +provider +scope +mode +entries +oldest checked +newest checked$/);
    const rows = lines.slice(5, 7);
    expect(rows.map((row) => row.split(/ +/).slice(0, 2)).sort()).toEqual(
      [
        [ID.key, "qwen2.5:1.5b"],
        [OTHER.key, "llama3.2:3b"],
      ].sort(),
    );
    // Every column starts where its header starts; the entries column is right-aligned under its header's end.
    for (const name of ["model", "provider", "scope", "mode", "oldest checked", "newest checked"]) {
      const at = header.indexOf(name);
      for (const row of rows) expect(row[at - 1], `${name} in ${row}`).toBe(" ");
      for (const row of rows) expect(row[at], `${name} in ${row}`).not.toBe(" ");
    }
    const entriesEnd = header.indexOf("entries") + "entries".length;
    expect(rows.map((row) => row.slice(entriesEnd - 1, entriesEnd)).sort()).toEqual(["1", "3"]);
    expect(lines.slice(7)).toEqual(["", "2 identities; `cache prune --identity KEY` removes one, `--json` prints all fields", ""]);
  });

  it("cache stats of a tampered cache file prints no raw control character and no line a CI runner reads as a command", async () => {
    const path = seed();
    const db = new Database(path);
    const hostile = { ...ID.identity, model: "m\u009b2J\u2028::error::a", provider: "p\n::add-mask::b", scope: "s\u001b[2J", mode: "x\r::error::c" };
    db.prepare("UPDATE identities SET key = ?, identity = ? WHERE key = ?").run("k\n::stop-commands::d", JSON.stringify(hostile), ID.key);
    db.prepare("UPDATE verdicts SET checked_at = ?").run("2026-01-01T00:00:00\n::error::e");
    db.close();
    const run = await runCli(["cache", "stats", "--cache", "verdicts.sqlite"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/u);
    for (const line of run.stdout.split("\n")) expect(line.trimStart().startsWith("::"), line).toBe(false);
  });

  it("cache stats of an empty cache prints the totals and no table", async () => {
    VerdictCache.open(join(dir, "empty.sqlite")).close();
    const run = await runCli(["cache", "stats", "--cache", "empty.sqlite"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n").slice(1)).toEqual(["entries: 0 (pass 0, flag 0, block 0); whole-record entries: 0", ""]);
  });

  it("sizes are shown in binary units", () => {
    expect([humanBytes(0), humanBytes(1023), humanBytes(1024), humanBytes(49_152), humanBytes(1_288_490_189)]).toEqual([
      "0 B",
      "1023 B",
      "1.0 KiB",
      "48.0 KiB",
      "1.2 GiB",
    ]);
  });

  it("cache prune --older-than removes by age; --identity by identity; both together only what matches both", async () => {
    const path = seed();
    let run = await runCli(["cache", "prune", "--cache", path, "--older-than", "30d"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ path, removed: 1, remaining: 3 });
    run = await runCli(["cache", "prune", "--cache", path, "--identity", ID.key, "--older-than", "48h"], { cwd: dir });
    expect(JSON.parse(run.stdout)).toEqual({ path, removed: 1, remaining: 2 });
    run = await runCli(["cache", "prune", "--cache", path, "--identity", OTHER.key], { cwd: dir });
    expect(JSON.parse(run.stdout)).toEqual({ path, removed: 1, remaining: 1 });
  });

  it("cache alone, or with a misspelt subcommand, is refused (exit 2) naming the subcommands, and a misused one points to its help", async () => {
    const bare = await runCli(["cache"], { cwd: dir });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("error: cache needs a subcommand: use stats or prune");
    const typo = await runCli(["cache", "prnue"], { cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('error: cache has no subcommand "prnue": use stats or prune');
    expect(typo.stdout).toBe("");
    const flag = await runCli(["cache", "prune", "--max-byte", "1MiB"], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("(Did you mean --max-bytes?)");
    expect(flag.stderr).toContain("(little-canary cache prune --help lists its options, with examples)");
  });

  it("cache prune with neither --older-than nor --identity is refused naming both flags, nothing removed", async () => {
    const path = seed();
    const run = await runCli(["cache", "prune", "--cache", path], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("--older-than DURATION or --identity KEY");
    expect((await runCli(["cache", "stats", "--cache", path, "--json"], { cwd: dir })).stdout).toContain('"entries":4');
  });

  it("a bad duration or identity key is refused naming the flag", async () => {
    const path = seed();
    let run = await runCli(["cache", "prune", "--cache", path, "--older-than", "30 days"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--older-than must be a whole number and a unit");
    run = await runCli(["cache", "prune", "--cache", path, "--identity", "abc"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--identity must be an identity key");
  });

  it("a missing cache file is refused naming the path (exit 2) and is not created", async () => {
    for (const args of [["stats"], ["prune", "--older-than", "1d"]]) {
      const run = await runCli(["cache", ...args, "--cache", "absent.sqlite"], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`the cache file ${join(dir, "absent.sqlite")} does not exist`);
    }
    expect(() => VerdictCache.open(join(dir, "absent.sqlite"), { mustExist: true })).toThrow(/does not exist/);
  });

  it("an empty file is refused by stats and prune alike, and prune leaves it as it was (no cache made of it)", async () => {
    writeFileSync(join(dir, "empty.sqlite"), "");
    for (const args of [["stats"], ["prune", "--older-than", "1d"], ["prune", "--max-bytes", "1MiB"]]) {
      const run = await runCli(["cache", ...args, "--cache", "empty.sqlite"], { cwd: dir });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`${join(dir, "empty.sqlite")} is an empty file (0 bytes), not a little-canary verdict cache`);
      expect(readFileSync(join(dir, "empty.sqlite")).length).toBe(0);
    }
    // A SQLite database with no tables (its pages written) is named as one.
    const db = new Database(join(dir, "tables-gone.sqlite"));
    db.exec("CREATE TABLE t (x); DROP TABLE t;");
    db.close();
    const run = await runCli(["cache", "stats", "--cache", "tables-gone.sqlite"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(dir, "tables-gone.sqlite")} is an empty SQLite database, not a little-canary verdict cache`);
  });

  it("a file that is not a verdict cache is refused naming the path (exit 2)", async () => {
    writeFileSync(join(dir, "manifest.json"), "{}\n");
    const run = await runCli(["cache", "stats", "--cache", "manifest.json"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(dir, "manifest.json")} is not an SQLite database; give the path of an existing verdict cache`);
  });

  it("`cache` without a subcommand, or without --cache, is a usage error (exit 2)", async () => {
    expect((await runCli(["cache"], { cwd: dir })).code).toBe(2);
    const run = await runCli(["cache", "stats"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--cache <path>");
  });

  it("help shows examples for stats and prune", async () => {
    const run = await runCli(["cache", "--help"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("little-canary cache stats --cache verdicts.sqlite");
    expect(run.stdout).toContain("little-canary cache prune --cache verdicts.sqlite --older-than 30d");
  });

  it("cache prune --max-bytes removes the oldest entries until the file fits and reports the size after; with --older-than, the old go first", async () => {
    const path = join(dir, "big.sqlite");
    const cache = VerdictCache.open(path);
    // Checked one minute apart, from 2,000 minutes ago to 801 minutes ago (the CLI's clock is the system's).
    const start = Date.now() - 2000 * 60_000;
    for (let n = 0; n < 1200; n++) {
      // Digests do not compress: each entry keeps its size on disk.
      const value = { a: sha256Hex(`a${n}`), b: sha256Hex(`b${n}`), c: sha256Hex(`c${n}`) };
      cache.put({ textSha256: sha256Hex(`t${n}`), identity: ID, state: "pass", exercised: true, value, checkedAt: new Date(start + n * 60_000).toISOString() });
    }
    cache.close();
    const clock = () => new Date(start + 1200 * 60_000);
    // --older-than alone runs as before (no size in the output)...
    expect(cachePrune({ cache: path, olderThan: 1190 * 60_000, clock })).toEqual({ path, removed: 10, remaining: 1190 });
    // ...and with --max-bytes, the age prune first, then the oldest of what is left.
    const both = await runCli(["cache", "prune", "--cache", path, "--older-than", "1900m", "--max-bytes", "96KiB"], { cwd: dir });
    expect(both.code, both.stderr).toBe(0);
    const result = JSON.parse(both.stdout);
    expect(Object.keys(result)).toEqual(["path", "removed", "remaining", "size_bytes"]);
    expect(result.removed + result.remaining).toBe(1190);
    expect(result.size_bytes).toBeLessThanOrEqual(96 * 1024);
    expect(statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)).toBe(result.size_bytes);
    const stats = cacheStats({ cache: path });
    expect(stats.entries).toBe(result.remaining);
    // The newest survive: the last entry checked is still there, and nothing older than the oldest kept.
    expect(stats.newest_checked_at).toBe(new Date(start + 1199 * 60_000).toISOString());
    expect(Date.parse(stats.oldest_checked_at as string)).toBe(start + (1200 - result.remaining) * 60_000);
  });

  it("cache prune --max-bytes that leaves the file above the size says so on stderr (exit 0, the JSON as always)", async () => {
    const path = join(dir, "held.sqlite");
    VerdictCache.open(path).close();
    // A reader in another process can keep the write-ahead log from being emptied: stood in for
    // here by the size the prune reports.
    const spy = vi.spyOn(VerdictCache.prototype, "pruneToSize").mockReturnValue({ removed: 0, sizeBytes: 4_352_104 });
    try {
      const run = await runCli(["cache", "prune", "--cache", path, "--max-bytes", "300KB"], { cwd: dir });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ removed: 0, size_bytes: 4_352_104 });
      expect(run.stderr).toBe(
        "warning: the cache file is still 4352104 bytes, above --max-bytes 300000: another process held it open, so its write-ahead log could not be emptied; run cache prune again once it is closed\n",
      );
      spy.mockReturnValue({ removed: 0, sizeBytes: 300_000 });
      const fits = await runCli(["cache", "prune", "--cache", path, "--max-bytes", "300KB"], { cwd: dir });
      expect(fits.stderr).toBe("");
    } finally {
      spy.mockRestore();
    }
  });

  it("a bad --max-bytes is refused naming the flag, and nothing is removed", async () => {
    const path = seed();
    for (const bad of ["10", "5XB", "-1", "1.5GB", "64000", "lots"]) {
      const run = await runCli(["cache", "prune", "--cache", path, "--max-bytes", bad], { cwd: dir });
      expect(run.code, bad).toBe(2);
      expect(run.stdout, bad).toBe("");
      expect(run.stderr, bad).toContain("--max-bytes must be");
    }
    expect(cacheStats({ cache: path }).entries).toBe(4);
    expect([parseByteSize("1048576"), parseByteSize("64KiB"), parseByteSize("500MB"), parseByteSize("2 GiB"), parseByteSize("1tb")]).toEqual([
      1_048_576, 65_536, 500_000_000, 2_147_483_648, 1e12,
    ]);
    // A size past what a byte count can be here says so, naming the most there is.
    expect(() => parseByteSize("9000TiB")).toThrow("--max-bytes is too large: at most 9007199254740991 bytes (8 PiB)");
    expect(() => parseByteSize("100000000000000000000000B")).toThrow("--max-bytes is too large: at most 9007199254740991 bytes (8 PiB)");
    expect(() => parseByteSize(`${"9".repeat(500)}MB`)).toThrow("--max-bytes is too large: at most 9007199254740991 bytes (8 PiB)");
  });

  it("durations take s, m, h, d and w; the library verb refuses no condition", () => {
    expect([parseDuration("45s"), parseDuration("90m"), parseDuration("12h"), parseDuration("30d"), parseDuration("2w")]).toEqual([
      45_000, 5_400_000, 43_200_000, 2_592_000_000, 1_209_600_000,
    ]);
    expect(() => parseDuration("-1d")).toThrow(/--older-than/);
    // Too long to subtract from now as a date: refused naming the range, never a RangeError.
    for (const long of ["999999999w", "20000000w", "999999999d", `${"9".repeat(40)}s`]) {
      expect(() => parseDuration(long)).toThrow(new UsageError("--older-than is too long: at most 100000d (about 274 years)"));
    }
    expect(parseDuration("100000d")).toBe(100_000 * 86_400_000);
    expect(() => cachePrune({ cache: "x.sqlite", cwd: dir, olderThan: Number.NaN })).toThrow(new UsageError("--older-than must be a duration of 0 or more"));
    expect(() => cachePrune({ cache: "x.sqlite", cwd: dir, olderThan: 1e300 })).toThrow(/--older-than is too long/);
    expect(() => cachePrune({ cache: "x.sqlite", cwd: dir })).toThrow(/--older-than DURATION or --identity KEY/);
  });
});
