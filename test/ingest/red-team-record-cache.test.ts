// Red team of whole-record entries in the verdict cache (src/ingest/record-cache.ts): a stored
// entry edited by hand must never make a warm run admit a record its own segments do not
// cover, nor write a manifest that `verify` rejects. Each edit below is a miss, and the warm run
// writes exactly the manifest of a run that rebuilds the record from its verdicts.
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packJson, unpackJson } from "../../src/cache/stored-json.js";
import { type Json, readJson, startFallingCanary, timeless, withSqlite } from "../support/cache-runs.js";
import { runCli } from "../support/cli.js";
import type { OllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDir } from "../support/publish-fixtures.js";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startFallingCanary();
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

const ingest = (manifest: string, extra: string[] = []) =>
  runCli(
    [
      "ingest",
      "in.jsonl",
      "--manifest-version",
      "1",
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
/** Rewrites every stored record entry's text with `edit`. */
const editStoredText = (edit: (text: string) => string): void =>
  withDb((db) => {
    const rows = db.prepare("SELECT id, entry FROM record_entries").all() as Array<{ id: number; entry: Buffer }>;
    const update = db.prepare("UPDATE record_entries SET entry = ? WHERE id = ?");
    for (const row of rows) update.run(packJson(edit(unpackJson(row.entry) as string)), row.id);
  });
const editStored = (edit: (entry: Json) => void): void =>
  editStoredText((text) => {
    const entry = JSON.parse(text) as Json;
    edit(entry);
    return JSON.stringify(entry);
  });

// A long record: its first text segment is ordinary, its last one carries an injection.
const benign = "The quarterly figures were reviewed by the finance team and filed. ".repeat(60);
const injected = `${benign}The shipment goes to zanzibar next week.`;

describe("red team: whole-record entries edited by hand", () => {
  it("red team: a stored entry with its detecting segment removed is a miss (the record stays held, verify accepts the warm manifest)", async () => {
    await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ id: "long", text: injected })}\n`);
    expect((await ingest("m1.json")).code).toBe(1);
    withDb((db) => expect(db.prepare("SELECT count(*) FROM record_entries").pluck().get()).toBe(1));
    const cold = (await read("m1.json"))["records"] as Json[];
    expect(cold[0]?.["admission"]).toBe("held");
    expect(((cold[0] as Json)["segments"] as Json[]).length).toBeGreaterThan(1);
    expect((await ingest("m2.json")).code).toBe(1);
    const honest = timeless(await read("m2.json"));
    // Drop every segment but the first (ordinary) one and restate the record as its segments give,
    // also recomputing the entry's stored SHA-256 as an editor who knows the format would.
    editStored((entry) => {
      const segments = entry["segments"] as Json[];
      const first = segments[0] as Json;
      entry["segments"] = [first];
      entry["detection"] = "none";
      entry["hold_reasons"] = [];
      entry["admission"] = "admitted";
      entry["segments_checked"] = 1;
      entry["chars_covered"] = (first["end"] as number) - (first["start"] as number);
    });
    withDb((db) => {
      const text = unpackJson(db.prepare("SELECT entry FROM record_entries").pluck().get()) as string;
      db.prepare("UPDATE record_entries SET entry_sha256 = ?").run(createHash("sha256").update(text).digest());
    });
    const warm = await ingest("m3.json");
    expect(warm.code, warm.stderr).toBe(1);
    expect(timeless(await read("m3.json"))).toEqual(honest);
    const verified = await runCli(["verify", "--manifest", "m3.json"], { cwd: dir });
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("red team: a stored entry with a field the manifest schema does not have, or with a key given twice, is a miss", async () => {
    await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ id: "a", text: "An ordinary note about the quarterly figures." })}\n`);
    expect((await ingest("m1.json")).code).toBe(0);
    expect((await ingest("m2.json")).code).toBe(0);
    const honest = timeless(await read("m2.json"));
    for (const [name, edit] of [
      ["an unknown top-level field", (t: string) => t.replace(/^\{/, '{"aaa_note":"planted",')],
      ["an unknown segment field", (t: string) => t.replace('"segments":[{', '"segments":[{"aaa":1,')],
      ["a key given twice", (t: string) => t.replace(/^\{/, '{"admission":"held",')],
    ] as const) {
      editStoredText(edit);
      const warm = await ingest("m3.json", ["--overwrite"]);
      expect(warm.code, name).toBe(0);
      const text = await readFile(join(dir, "m3.json"), "utf8");
      expect(text, name).not.toContain("planted");
      expect(timeless(JSON.parse(text) as Json), name).toEqual(honest);
      const verified = await runCli(["verify", "--manifest", "m3.json"], { cwd: dir });
      expect({ code: verified.code, stderr: verified.stderr }, name).toEqual({ code: 0, stderr: "" });
      // The rebuilt record is stored again, honest.
      withDb((db) => db.prepare("DELETE FROM record_entries").run());
      expect((await ingest("m4.json", ["--overwrite"])).code).toBe(0);
    }
  });
});

describe("red team: input lines that could confuse the first pass's scratch file", () => {
  it("red team: CRLF endings, trailing blanks, U+2028, braces and a head-like text give the same warm manifest with and without record entries", async () => {
    const head = '{"index":0,"line":1,"line_sha256":"' + "0".repeat(64) + '","record":';
    const lines = [
      `${JSON.stringify({ id: "crlf", text: "A line that ends with a carriage return." })}\r`,
      `${JSON.stringify({ id: "blank", text: "Trailing blanks after the object." })}   \t`,
      JSON.stringify({ id: "sep", text: "Line\u2028separator and paragraph\u2029separator inside." }),
      JSON.stringify({ id: "brace", text: "}}}" }),
      JSON.stringify({ id: "head", text: head }),
      JSON.stringify({ id: "held", text: 42 }),
      JSON.stringify({ id: "astral", text: "😀".repeat(10), metadata: { k: "}\n" } }),
    ];
    await writeFile(join(dir, "in.jsonl"), `${lines.join("\n")}\n`);
    const cold = await ingest("m1.json", ["--export", "e1.jsonl"]);
    expect(cold.code, cold.stderr).not.toBe(3);
    const coldRecords = (await read("m1.json"))["records"] as Json[];
    expect(coldRecords.map((r) => r["id"])).toEqual(["crlf", "blank", null, "brace", "head", null, "astral"]);
    expect((await ingest("m2.json", ["--export", "e2.jsonl"])).code).toBe(cold.code);
    withDb((db) => db.prepare("DELETE FROM record_entries").run());
    expect((await ingest("m3.json", ["--export", "e3.jsonl"])).code).toBe(cold.code);
    const [m2, m3] = [await read("m2.json"), await read("m3.json")];
    // Only the record the character scan blocks (U+2028, never cached: its canary did not run) is checked again.
    expect((m2["run"] as Json)["checks_performed"]).toBe(1);
    expect(((m2["records"] as Json[]).filter((r) => r["admission"] === "admitted") as Json[]).map((r) => r["id"])).toEqual([
      "crlf",
      "blank",
      "brace",
      "head",
      "astral",
    ]);
    // The record checked again carries this run's own latencies; everything else is byte for byte the same.
    const untimed = (m: Json): Json => JSON.parse(JSON.stringify(timeless(m), (key, v) => (key === "latency" || key === "total_latency" ? 0 : v))) as Json;
    expect(untimed(m2)).toEqual(untimed(m3));
    const reusedOnly = (m: Json): Json[] =>
      (m["records"] as Json[]).filter((r) => (r["segments"] as Json[]).length > 0 && (r["segments"] as Json[]).every((g) => g["reused"] === true));
    expect(reusedOnly(m2)).toEqual(reusedOnly(m3));
    expect(reusedOnly(m2)).toHaveLength(5);
    const strip = (text: string) => text.replace(/"manifest_sha256":"[0-9a-f]{64}"/, "");
    expect(strip(await readFile(join(dir, "e2.jsonl"), "utf8"))).toBe(strip(await readFile(join(dir, "e3.jsonl"), "utf8")));
    const verified = await runCli(["verify", "--manifest", "m2.json", "--export", "e2.jsonl"], { cwd: dir });
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
  });
});
