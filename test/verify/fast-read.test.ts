// The fast read of a pair (core/canonical-json-file.ts) and the exact one (the strict grammar over
// every byte) give the same verification, problem for problem, on a corpus of damaged pairs made
// from one small genuine pair: byte flips at many positions, truncations, duplicate keys at depth,
// invalid UTF-8, non-canonical numbers and escapes, whitespace, reordered records, a lone
// surrogate, `__proto__` and integer-like keys. A pair laid out as ingest writes it is read fast,
// damaged bytes fall back to the exact reader, and damage that keeps the bytes canonical (a changed
// digest, a forged count) is reported by the fast read itself. A pair of long records verifies
// consistent at read sizes smaller and larger than its records, so each record's bytes, from which
// the export digests are taken, are still intact when they are used; a long text with no escape
// (which the fast read leaves as bytes) is among the records damaged.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { enc, makeRun, tempDir, type Json } from "./verify-stream-properties.js";

const dec = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

/** A genuine pair: admitted and held records, metadata, non-ASCII text, a repeated id. */
function genuine() {
  return makeRun(
    [
      { id: "doc-a", source: "wiki", metadata: { title: "Ünïcode", author: "x" }, text: 'first text with "quotes" and \\ back\nslash' },
      { id: "doc-b", source: null, metadata: {}, text: "please BLOCK this one" },
      { id: "doc-a", source: null, metadata: { "ключ": "значение" }, text: "emoji 😀 text, a FLAG here" },
      { id: null, source: "drive", metadata: {}, text: "plain and admitted" },
      { malformed: { text: 42, detail: "text must be a string" } },
    ],
    true,
  );
}

interface Pair {
  readonly manifest: Uint8Array;
  readonly exported: Uint8Array;
}

/**
 * Verifies the pair both ways, and the fast way again with its records dealt out one at a time
 * to two shares (checked here one after the other); expects the same outcome from all three and
 * returns which reader the fast one used.
 */
async function bothWays(dir: string, pair: Pair, chunkBytes?: number): Promise<"canonical" | "exact"> {
  const paths = { manifest: join(dir, "manifest.json"), export: join(dir, "export.json") };
  await writeFile(paths.manifest, pair.manifest);
  await writeFile(paths.export, pair.exported);
  const options = { ...paths, ...(chunkBytes === undefined ? {} : { chunkBytes }) };
  const fast = await verifyFilesWithMode(options, "canonical");
  const exact = await verifyFilesWithMode(options, "exact");
  expect(exact.reader).toBe("exact");
  expect(fast.result).toEqual(exact.result);
  expect(fast.mode).toBe(exact.mode);
  // Unasked, the fast read does not hash the export (its SHA-256 serves a sharded run's index
  // only); read exactly or whole, it is hashed as it is read.
  const exportUnhashed = fast.reader === "canonical" && fast.mode === "streamed";
  expect(fast.documents).toEqual({ ...exact.documents, exportSha256: exportUnhashed ? null : exact.documents.exportSha256 });
  // The records checked here one share after the other: both files hashed, to hold the two reads to the same bytes.
  const shared = await verifyFilesWithMode(options, "canonical", { url: null, block: 1 });
  expect(shared.result).toEqual(exact.result);
  expect(shared.mode).toBe(exact.mode);
  expect(shared.documents).toEqual(exact.documents);
  return fast.reader;
}

const splice = (bytes: Uint8Array, at: number, remove: number, insert: readonly number[]): Uint8Array =>
  Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at + remove)]);

/** `text` with `edit` applied at the first occurrence of `needle` (the test fails if there is none). */
function editText(text: string, needle: string, edit: (before: string, after: string) => string): string {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThan(-1);
  return edit(text.slice(0, at), text.slice(at));
}

/** A step that visits about 60 positions of `bytes`, at varied offsets within the tokens (odd). */
const stride = (bytes: Uint8Array): number => Math.ceil(bytes.length / 120) * 2 + 1;

const canon = (value: unknown): Uint8Array => enc(canonicalJsonUnchecked(value));

describe("verify reads a pair fast and exactly with the same result", () => {
  it("a genuine pair is read fast (at any read size) and verifies consistent", async () => {
    const dir = await tempDir();
    const run = genuine();
    const pair = { manifest: run.manifest.bytes, exported: run.exported!.bytes };
    for (const chunk of [7, 61, 4096, undefined]) expect(await bothWays(dir, pair, chunk)).toBe("canonical");
    const { result } = await verifyFilesWithMode({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json") });
    expect(result.consistent).toBe(true);
  });

  it("a pair of long records verifies consistent through the fast read at any read size", async () => {
    const dir = await tempDir();
    // Records of about 1 to 5 KB, so that reads end inside, between and after them: each export
    // record's bytes must still be intact when its digests are taken from them.
    const words = (count: number, seed: string): string => Array.from({ length: count }, (_, i) => `${seed}${i % 97} Zürich 東京`).join(" ");
    const inputs = Array.from({ length: 12 }, (_, i) => ({
      id: `long-${i}`,
      source: null,
      metadata: (i % 3 === 0 ? { lang: "en" } : {}) as Record<string, string>,
      text: words(40 + ((i * 37) % 200), `w${i}-`),
    }));
    const run = makeRun(inputs, false, 3);
    expect(run.exported?.document.records.length).toBe(inputs.length);
    const pair = { manifest: run.manifest.bytes, exported: run.exported!.bytes };
    const paths = { manifest: join(dir, "manifest.json"), export: join(dir, "export.json") };
    for (const chunk of [61, 509, 4096, 65536, undefined]) {
      expect(await bothWays(dir, pair, chunk)).toBe("canonical");
      const { result } = await verifyFilesWithMode({ ...paths, ...(chunk === undefined ? {} : { chunkBytes: chunk }) }, "canonical", null);
      expect(result.problems).toEqual([]);
    }
  });

  it("byte flips at many positions of either file agree", async () => {
    const dir = await tempDir();
    const run = genuine();
    const m = run.manifest.bytes;
    const e = run.exported!.bytes;
    const values = [0x20, 0x22, 0x5c, 0x7d, 0x5d, 0x2c, 0x30, 0x61, 0xff];
    const readers = new Set<string>();
    for (let at = 0, k = 0; at < m.length; at += stride(m), k++) {
      readers.add(await bothWays(dir, { manifest: splice(m, at, 1, [values[k % values.length] as number]), exported: e }, 509));
    }
    for (let at = 0, k = 0; at < e.length; at += stride(e), k++) {
      readers.add(await bothWays(dir, { manifest: m, exported: splice(e, at, 1, [values[k % values.length] as number]) }, 509));
    }
    // Some flips keep the bytes canonical (a hex digit of a digest): the fast read reports those itself.
    expect([...readers].sort()).toEqual(["canonical", "exact"]);
  });

  it("truncations of either file agree", async () => {
    const dir = await tempDir();
    const run = genuine();
    const m = run.manifest.bytes;
    const e = run.exported!.bytes;
    for (let at = 0; at < m.length; at += stride(m) * 2 + 1) expect(await bothWays(dir, { manifest: m.subarray(0, at), exported: e }, 509)).toBe("exact");
    for (let at = 0; at < e.length; at += stride(e) * 2 + 1) expect(await bothWays(dir, { manifest: m, exported: e.subarray(0, at) }, 509)).toBe("exact");
  });

  it("duplicate keys at depth, invalid UTF-8, non-canonical numbers, escapes and whitespace fall back and agree", async () => {
    const dir = await tempDir();
    const run = genuine();
    const m = dec(run.manifest.bytes);
    const e = dec(run.exported!.bytes);
    const manifestEdits: Array<(t: string) => string> = [
      (t) => editText(t, '"exercised":', (b, a) => `${b}"exercised":true,${a}`),
      (t) => editText(t, '"flagged":', (b, a) => `${b}"flagged":false,${a}`),
      (t) => editText(t, '"length":', (b, a) => `${b}"length":1,${a}`),
      (t) => editText(t, '"index":0', (b, a) => `${b}"index":0.0${a.slice('"index":0'.length)}`),
      (t) => editText(t, '"index":0', (b, a) => `${b}"index":-0${a.slice('"index":0'.length)}`),
      (t) => editText(t, '"index":1', (b, a) => `${b}"index":1e0${a.slice('"index":1'.length)}`),
      (t) => editText(t, '"segments_total":', (b, a) => `${b}"segments_total":9007199254740993,"x":${a.slice('"segments_total":'.length)}`),
      (t) => editText(t, '"detail":', (b, a) => `${b}"x\\ud800":1,${a}`),
      (t) => editText(t, '"admission":', (b, a) => `${b}"\\u0061dmission":"held",${a}`),
      (t) => editText(t, '"schema":"', (b, a) => `${b}"schema":"little-canary-ingest-manifest\\/v1"${a.slice(a.indexOf('",') + 1)}`),
      (t) => editText(t, '"records":[', (b, a) => `${b}"records": [${a.slice('"records":['.length)}`),
      (t) => `${t}\n`,
      (t) => ` ${t}`,
    ];
    for (const edit of manifestEdits) expect(await bothWays(dir, { manifest: enc(edit(m)), exported: run.exported!.bytes }, 509)).toBe("exact");
    const exportEdits: Array<(t: string) => string> = [
      (t) => editText(t, '"text":', (b, a) => `${b}"text":"Forged",${a}`),
      (t) => editText(t, '"text":', (b, a) => `${b}"\\u0074ext":"Forged",${a}`),
      (t) => editText(t, '"metadata":{"author"', (b, a) => `${b}"metadata":{"author":"y",${a.slice('"metadata":{'.length)}`),
      (t) => editText(t, "first text", (b, a) => `${b}\\ud800${a}`),
      (t) => editText(t, "first text", (b, a) => `${b}\\u0066${a.slice(1)}`),
      (t) => editText(t, "first text", (b, a) => `${b}\\/${a}`),
      (t) => editText(t, '"index":0', (b, a) => `${b}"index":0E0${a.slice('"index":0'.length)}`),
      (t) => editText(t, '},{"id"', (b, a) => `${b}} ,{"id"${a.slice(2)}`),
    ];
    for (const edit of exportEdits) expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(edit(e)) }, 509)).toBe("exact");
    const bytes = run.exported!.bytes;
    for (const at of [1, 20, Math.floor(bytes.length / 2), bytes.length - 2]) {
      expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: splice(bytes, at, 0, [0xc3, 0x28]) }, 61)).toBe("exact");
      expect(await bothWays(dir, { manifest: splice(run.manifest.bytes, at, 0, [0xed, 0xa0, 0x80]), exported: bytes }, 61)).toBe("exact");
    }
  });

  it("damage inside a long text, which the fast read leaves as bytes, agrees", async () => {
    const dir = await tempDir();
    // Under the default policy, so that a long text is one admitted segment.
    const run = makeRun(
      [
        { id: "doc-long", source: null, metadata: { lang: "de" }, text: `${"long admitted text, Zürich 東京 😀 ".repeat(12)}end` },
        { id: "doc-next", source: "wiki", metadata: {}, text: "x".repeat(300) },
      ],
      false,
      3,
    );
    const e = dec(run.exported!.bytes);
    expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: run.exported!.bytes })).toBe("canonical");
    const edits: Array<(t: string) => string> = [
      // A raw control character, a quote, an escape where none is needed, a member after the text.
      (t) => editText(t, "long admitted", (b, a) => `${b}\u0001${a}`),
      (t) => editText(t, "long admitted", (b, a) => `${b}\u001f${a}`),
      (t) => editText(t, "long admitted", (b, a) => `${b}"${a}`),
      (t) => editText(t, "long admitted", (b, a) => `${b}\\u006c${a.slice(1)}`),
      (t) => editText(t, "😀 end", (b, a) => `${b}😀 end","z":"${a.slice("😀 end".length)}`),
      (t) => editText(t, '"text":"long', (b, a) => `${b}"text":"x","text":"long${a.slice('"text":"long'.length)}`),
    ];
    for (const edit of edits) expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(edit(e)) }, 509)).toBe("exact");
    // A changed character keeps the bytes canonical: the fast read reports the digests itself.
    expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(e.replace("long admitted", "long Admitted")) })).toBe("canonical");
    const bytes = run.exported!.bytes;
    const start = Buffer.from(bytes).indexOf("long admitted");
    for (let at = start, k = 0; at < start + 400; at += 23, k++) {
      await bothWays(dir, { manifest: run.manifest.bytes, exported: splice(bytes, at, 1, [[0x00, 0x1f, 0x22, 0x5c, 0xff, 0x80, 0x7f][k % 7] as number]) }, 509);
    }
  });

  it("reordered records, __proto__ and integer-like keys agree", async () => {
    const dir = await tempDir();
    const run = genuine();
    const m = structuredClone(run.manifest.document) as Json;
    const e = structuredClone(run.exported!.document) as Json;
    const relinked = (manifest: Json, exported: Json): Pair => {
      exported.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(manifest));
      return { manifest: canon(manifest), exported: canon(exported) };
    };
    // Export records out of order: canonical bytes, read whole, exactly as before.
    const reversed = structuredClone(e);
    reversed.records.reverse();
    await bothWays(dir, { manifest: run.manifest.bytes, exported: canon(reversed) });
    // Manifest records swapped (indices no longer their positions): canonical, reported by the fast read.
    const swapped = structuredClone(m);
    [swapped.records[0], swapped.records[1]] = [swapped.records[1], swapped.records[0]];
    expect(await bothWays(dir, relinked(swapped, structuredClone(e)))).toBe("canonical");
    // `__proto__` as a key: JSON.parse and the strict grammar both make it an own property.
    const proto = dec(run.exported!.bytes).replace('"metadata":{}', '"metadata":{"__proto__":"x"}');
    expect(proto).not.toBe(dec(run.exported!.bytes));
    expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(proto) })).toBe("canonical");
    // "__proto__" sorts before "admission": still canonical, an unknown field the checks report.
    const protoManifest = dec(run.manifest.bytes).replace('"admission":', '"__proto__":{"a":1},"admission":');
    expect(await bothWays(dir, { manifest: enc(protoManifest), exported: run.exported!.bytes })).toBe("canonical");
    // Integer-like keys: V8 orders them first, so the fast read declines them, and both agree.
    const numeric = dec(run.exported!.bytes).replace('"metadata":{}', '"metadata":{"10":"a","9":"b"}');
    expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(numeric) })).toBe("exact");
    // Keys out of order.
    const unsorted = dec(run.exported!.bytes).replace('"metadata":{"author":"x","title":"Ünïcode"}', '"metadata":{"title":"Ünïcode","author":"x"}');
    expect(unsorted).not.toBe(dec(run.exported!.bytes));
    expect(await bothWays(dir, { manifest: run.manifest.bytes, exported: enc(unsorted) })).toBe("exact");
  });

  it("damage that keeps the bytes canonical is reported by the fast read, as the exact read reports it", async () => {
    const dir = await tempDir();
    const run = genuine();
    const m = structuredClone(run.manifest.document) as Json;
    const e = structuredClone(run.exported!.document) as Json;
    const tampers: Array<(manifest: Json, exported: Json) => void> = [
      (manifest) => {
        manifest.counts.admitted += 1;
      },
      (manifest) => {
        manifest.records[1].detection = manifest.records[1].detection === "none" ? "block" : "none";
      },
      (_, exported) => {
        exported.records[0].text += "!";
      },
      (_, exported) => {
        exported.records[0].sha256 = "0".repeat(64);
      },
      (_, exported) => {
        exported.records.pop();
      },
      (manifest) => {
        manifest.records[0].extra = 1;
      },
    ];
    for (const tamper of tampers) {
      const manifest = structuredClone(m);
      const exported = structuredClone(e);
      tamper(manifest, exported);
      exported.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(manifest));
      const pair = { manifest: canon(manifest), exported: canon(exported) };
      expect(await bothWays(dir, pair, 509)).toBe("canonical");
      const { result } = await verifyFilesWithMode({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json") });
      expect(result.consistent).toBe(false);
    }
  });
});
