// Whole-record entries in the verdict cache (src/ingest/record-cache.ts), end to end through
// the CLI against the Ollama-like stand-in: a warm run that takes records' stored entries
// writes the same manifest and export as one that rebuilds them from segment verdicts, a
// stored entry that does not hold together is a miss, the key changes with the policy and the
// allow file, and an entry moves with its record to a new position.
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packJson, unpackJson } from "../../src/cache/stored-json.js";
import { type Json, readJson, timeless, withSqlite } from "../support/cache-runs.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDir } from "../support/publish-fixtures.js";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "A short summary of the text." });
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

const line = (i: number, extra = ""): string =>
  JSON.stringify({ id: `r${i}`, text: `Ordinary record ${i} about the quarterly figures${extra}.`, metadata: { lang: "en", part: `p${i % 3}` } });
const corpus = (lines: readonly string[]): string => `${lines.join("\n")}\n`;
const ingest = (manifest: string, extra: string[] = [], input = "in.jsonl", version = "1") =>
  runCli(
    [
      "ingest",
      input,
      "--manifest-version",
      version,
      "--manifest",
      manifest,
      "--ollama-url",
      ollama.url,
      "--canary-model",
      "qwen2.5:1.5b",
      "--cache",
      "v.sqlite",
      ...extra,
    ],
    {
      cwd: dir,
    },
  );
const read = (name: string): Promise<Json> => readJson(dir, name);
const withDb = <T>(fn: (db: Database.Database) => T): T => withSqlite(join(dir, "v.sqlite"), fn);
const recordRows = (): number => withDb((db) => db.prepare("SELECT count(*) FROM record_entries").pluck().get() as number);
/**
 * Rewrites every stored record entry with `edit` (on the parsed JSON). With `rehash`, the
 * entry's stored SHA-256 is recomputed too, as an editor who knows the format would; without
 * it, the edit is a careless one.
 */
const editStored = (edit: (entry: Json) => void, options: { rehash: boolean } = { rehash: true }): void =>
  withDb((db) => {
    const rows = db.prepare("SELECT id, entry FROM record_entries").all() as Array<{ id: number; entry: Buffer }>;
    const update = db.prepare("UPDATE record_entries SET entry = ?, entry_sha256 = CASE WHEN ? THEN ? ELSE entry_sha256 END WHERE id = ?");
    for (const row of rows) {
      const entry = JSON.parse(unpackJson(row.entry) as string) as Json;
      edit(entry);
      const text = JSON.stringify(entry);
      update.run(packJson(text), options.rehash ? 1 : 0, createHash("sha256").update(text).digest(), row.id);
    }
  });
const firstSegment = (entry: Json): Json => (entry["segments"] as Json[])[0] as Json;

describe("whole-record entries in the verdict cache", () => {
  it("a warm run taking stored record entries writes the manifest and export a run rebuilding them writes", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus([0, 1, 2, 3, 4].map((i) => line(i))));
    expect((await ingest("m1.json", ["--export", "e1.jsonl"])).code).toBe(0);
    // The cold run stores one entry per record, built from the verdicts it stored.
    expect(recordRows()).toBe(5);
    expect((await ingest("m2.json", ["--export", "e2.jsonl"])).code).toBe(0);
    // Without record entries, the same warm run rebuilds each entry from segment verdicts.
    withDb((db) => db.prepare("DELETE FROM record_entries").run());
    expect((await ingest("m3.json", ["--export", "e3.jsonl"])).code).toBe(0);
    const [m2, m3] = [await read("m2.json"), await read("m3.json")];
    expect((m2["run"] as Json)["cache"]).toEqual((m3["run"] as Json)["cache"]);
    expect((m2["run"] as Json)["checks_performed"]).toBe(0);
    expect(timeless(m2)).toEqual(timeless(m3));
    // The exports differ only in the manifest digest they name (the run times differ).
    const strip = (text: string) => text.replace(/"manifest_sha256":"[0-9a-f]{64}"/, "");
    expect(strip(await readFile(join(dir, "e2.jsonl"), "utf8"))).toBe(strip(await readFile(join(dir, "e3.jsonl"), "utf8")));
    const verified = await runCli(["verify", "--manifest", "m2.json", "--export", "e2.jsonl"], { cwd: dir });
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("in v2, a warm run taking stored record entries writes the manifest and export a run rebuilding them writes", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus([0, 1, 2, 3, 4].map((i) => line(i))));
    const ingestV2 = (manifest: string, exported: string) => ingest(manifest, ["--export", exported], "in.jsonl", "2");
    expect((await ingestV2("m1.json", "e1.jsonl")).code).toBe(0);
    expect(recordRows()).toBe(5);
    // The stored entries are v1 texts: a v2 run writes each once, in v2, from the entry taken.
    expect((await ingestV2("m2.json", "e2.jsonl")).code).toBe(0);
    withDb((db) => db.prepare("DELETE FROM record_entries").run());
    expect((await ingestV2("m3.json", "e3.jsonl")).code).toBe(0);
    const [m1, m2, m3] = [await read("m1.json"), await read("m2.json"), await read("m3.json")];
    expect(m2["schema"]).toBe("little-canary-ingest-manifest/v2");
    expect((m2["run"] as Json)["checks_performed"]).toBe(0);
    expect(timeless(m2)).toEqual(timeless(m3));
    expect((m2["records"] as Json[]).length).toBe((m1["records"] as Json[]).length);
    const strip = (text: string) => text.replace(/"manifest_sha256":"[0-9a-f]{64}"/, "");
    expect(strip(await readFile(join(dir, "e2.jsonl"), "utf8"))).toBe(strip(await readFile(join(dir, "e3.jsonl"), "utf8")));
    const verified = await runCli(["verify", "--manifest", "m2.json", "--export", "e2.jsonl"], { cwd: dir });
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("a stored entry is taken as stored (its evidence shows through) and placed at its record's new position", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus([0, 1, 2].map((i) => line(i))));
    expect((await ingest("m1.json")).code).toBe(0);
    // A latency no check produced: seen in the next manifest only if the stored entry is used.
    editStored((entry) => {
      firstSegment(entry)["latency"] = 12.3456;
    });
    // Two new records in front: the old ones move to positions 2..4.
    await writeFile(join(dir, "in2.jsonl"), corpus([line(7, " new"), line(8, " new"), line(0), line(1), line(2)]));
    expect((await ingest("m2.json", [], "in2.jsonl")).code).toBe(0);
    const records = (await read("m2.json"))["records"] as Json[];
    expect(records.map((r) => r["index"])).toEqual([0, 1, 2, 3, 4]);
    expect(records.map((r) => r["id"])).toEqual(["r7", "r8", "r0", "r1", "r2"]);
    expect(records.slice(2).map((r) => firstSegment(r)["latency"])).toEqual([12.3456, 12.3456, 12.3456]);
    expect(records.slice(0, 2).map((r) => firstSegment(r)["latency"])).not.toContain(12.3456);
    const verified = await runCli(["verify", "--manifest", "m2.json"], { cwd: dir });
    expect(verified.code).toBe(0);
  });

  it("a stored entry whose state its segments do not give is a miss, and the record is rebuilt from its verdicts", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus([0, 1].map((i) => line(i))));
    expect((await ingest("m1.json")).code).toBe(0);
    expect((await ingest("m2.json")).code).toBe(0);
    const honest = timeless(await read("m2.json"));
    // Edits whose author recomputed the stored SHA-256 are caught by the consistency checks;
    // a careless edit (any edit, the verdict replaced here) by the SHA-256 itself.
    for (const [name, edit, rehash] of [
      ["a detection its segments do not give", (e: Json) => void (e["detection"] = "flag"), true],
      ["a segment state the record does not show", (e: Json) => void (firstSegment(e)["state"] = "block"), true],
      ["a segment not marked reused", (e: Json) => void delete firstSegment(e)["reused"], true],
      ["a careless edit: a verdict that is not a verdict", (e: Json) => void (firstSegment(e)["verdict"] = { safe: true }), false],
      ["a careless edit: nothing but the latency changed", (e: Json) => void e, false],
    ] as const) {
      editStored(
        (entry) => {
          edit(entry);
          firstSegment(entry)["latency"] = 99.5;
        },
        { rehash },
      );
      expect((await ingest("m3.json", ["--overwrite"])).code, name).toBe(0);
      const rebuilt = timeless(await read("m3.json"));
      expect(rebuilt, name).toEqual(honest);
      // The rebuilt record is stored again, honest.
      withDb((db) => db.prepare("DELETE FROM record_entries").run());
      expect((await ingest("m4.json", ["--overwrite"])).code).toBe(0);
    }
    withDb((db) => db.prepare("UPDATE record_entries SET entry = ?").run(packJson("{not json")));
    expect((await ingest("m5.json")).code).toBe(0);
    expect(timeless(await read("m5.json"))).toEqual(honest);
  });

  it("another policy or allow file does not take the stored entries; the segment verdicts still serve", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus([0, 1, 2].map((i) => line(i))));
    const allow = (name: string, reason: string) => writeFile(join(dir, name), JSON.stringify([{ sha256: "a".repeat(64), scope: "record", reason, by: "qa" }]));
    await allow("allow-a.json", "first");
    await allow("allow-b.json", "second");
    const latencies = async (name: string) => ((await read(name))["records"] as Json[]).map((r) => firstSegment(r)["latency"]);
    // An allow file changes the pipeline (the canary also sees structurally blocked text), so
    // both runs below share one identity and differ only in the allow file.
    for (const [cold, extra] of [
      [
        ["--allow", "allow-a.json"],
        ["--allow", "allow-b.json"],
      ],
      [[], ["--max-segments", "63"]],
    ] as const) {
      expect((await ingest("m-cold.json", [...cold, "--overwrite"])).code).toBe(0);
      editStored((entry) => {
        firstSegment(entry)["latency"] = 42.5;
      });
      const run = await ingest("m-other.json", [...extra, "--overwrite"]);
      expect(run.code, run.stderr).toBe(0);
      expect(((await read("m-other.json"))["run"] as Json)["checks_performed"], extra.join(" ")).toBe(0);
      expect(await latencies("m-other.json"), extra.join(" ")).not.toContain(42.5);
      expect((await ingest("m-same.json", [...cold, "--overwrite"])).code).toBe(0);
      expect(await latencies("m-same.json"), cold.join(" ")).toEqual([42.5, 42.5, 42.5]);
      withDb((db) => db.prepare("DELETE FROM record_entries").run());
    }
  });
});
