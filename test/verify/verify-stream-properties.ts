// The properties of verify-stream.test.ts and verify-stream.heavy.test.ts: the one verifier gives the
// same problems whichever source feeds it, the files streamed in lockstep (verifyFiles) or the same
// bytes held in memory (verifyExport / verifyManifestOnly), on random genuine pairs and on tampered
// ones. Each file runs them with its own read sizes: a read costs a system call and a trip through
// the thread pool whatever its size, so the 5- and 7-byte reads (a token split across reads, each
// read yielding at most one event) make a pair cost about ten times as much as the 61-, 509- and
// 4096-byte ones (a record split across reads, many records in one read), and they run in
// `npm run test:heavy`.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import type { VerifyProblem } from "../../src/verify/problems.js";
import { verifyExport, verifyManifestOnly } from "../../src/verify/verify-export.js";
import { verifyFiles, verifyFilesWithMode, type VerifyMode } from "../../src/verify/verify-files.js";
import { synthRun, type SynthInput } from "../support/run-data.js";
import type { ManifestVersion } from "../../src/documents/manifest-v2.js";
import { parseAllowlist } from "../../src/documents/allowlist.js";
import { materialSha256 } from "../../src/documents/material-hash.js";
import { planSegments } from "../../src/documents/segment-plan.js";

/** Any JSON value; tests tamper with parsed documents the way an attacker edits files. */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

const inputArb: fc.Arbitrary<SynthInput> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      id: fc.option(fc.constantFrom("doc-a", "doc-b", "é-id", "doc-c"), { nil: null }),
      source: fc.option(fc.constantFrom("wiki", "drive"), { nil: null }),
      metadata: fc.dictionary(fc.constantFrom("title", "author", "ключ"), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      text: fc.oneof(
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.constantFrom("please BLOCK this", "a FLAG here", "DEGRADE me", "RAISE it", "emoji 😀 text"),
        // Long texts with no escape, which the fast read leaves as bytes, and one with an escape.
        fc.constantFrom(`${"Zürich 東京 😀 ".repeat(24)}a FLAG`, "plain words ".repeat(30), `${"line\n".repeat(60)}`),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ malformed: { text: 42, detail: "text must be a string" } } as SynthInput) },
);

// Four records at most: enough for duplicate ids, held records between admitted ones and segments of
// several records, while the 5- and 7-byte chunks (a read per few bytes) keep each run affordable.
/** A random run (inputs, policy size, read size from `chunks`, manifest version). */
export const runArb = (chunks: readonly number[]) =>
  fc.record({
    inputs: fc.array(inputArb, { minLength: 0, maxLength: 4 }),
    small: fc.boolean(),
    chunk: fc.constantFrom(...chunks),
    // The compact manifest ingest writes by default, and the v1 one it writes when asked.
    version: fc.constantFrom<ManifestVersion>(1, 3),
  });

/** A new temporary directory for one test's pair files. */
export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "lc-verify-stream-"));
}

/** A synthetic run of `inputs`, under a policy of 10-character segments when `small`, its manifest of `version` (default 1). */
export function makeRun(inputs: readonly SynthInput[], small: boolean, version: ManifestVersion = 1) {
  const policy = small ? resolvePolicy({ segment_chars: 10, segment_overlap: 2, max_segments: 20 }) : undefined;
  return synthRun(inputs, { ...(policy === undefined ? {} : { policy }), manifestVersion: version });
}

/** The whole-document verdict with read problems' messages given the file path, as verifyFiles names them. */
function wholeProblems(manifest: Uint8Array, exported: Uint8Array | null, paths: { manifest: string; export: string }): VerifyProblem[] {
  const problems = exported === null ? verifyManifestOnly(manifest) : verifyExport(exported, manifest);
  const named = problems.map((p) =>
    p.code === "manifest_unreadable" || p.code === "export_unreadable"
      ? {
          ...p,
          message: p.message.replace(
            /^cannot read (manifest|export)/,
            (_, l: string) => `cannot read ${l} ${l === "manifest" ? paths.manifest : paths.export}`,
          ),
        }
      : p,
  );
  // verifyExport reads the export first, verifyFiles the manifest first.
  return named.sort((a, b) => Number(b.code === "manifest_unreadable") - Number(a.code === "manifest_unreadable"));
}

const stats = { streamed: 0, whole: 0 };

/** Writes the pair, verifies it both ways, expects the same problems; returns the mode used. */
export async function agree(dir: string, manifest: Uint8Array, exported: Uint8Array | null, chunkBytes: number): Promise<VerifyMode> {
  const paths = { manifest: join(dir, "manifest.json"), export: join(dir, "export.json") };
  await writeFile(paths.manifest, manifest);
  if (exported !== null) await writeFile(paths.export, exported);
  const options = { manifest: paths.manifest, export: exported === null ? null : paths.export, chunkBytes };
  const { result, mode } = await verifyFilesWithMode(options);
  stats[mode]++;
  // The records dealt out one at a time to two shares (checked one after the other) give the same.
  const shared = await verifyFilesWithMode(options, "canonical", { url: null, block: 1 });
  expect(shared.result).toEqual(result);
  expect(shared.mode).toBe(mode);
  const expected = wholeProblems(manifest, exported, paths);
  const unreadable = expected.some((p) => p.code.endsWith("_unreadable"));
  if (unreadable) {
    expect(result.readable).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(expected.map((p) => p.code));
    // The reason is the strict reader's; with two problems in one chunk, a syntax one may be named.
    result.problems.forEach((p, i) => {
      const want = (expected[i] as VerifyProblem).message;
      if (p.message !== want) expect(p.message).toMatch(/\(malformed json\)$/);
    });
  } else {
    expect(result.problems).toEqual(expected);
    expect(result.manifestSha256).toBe(sha256Hex(manifest));
  }
  return mode;
}

/** A text edit at the `n`-th occurrence (mod count) of `needle`; null when there is none. */
function editAt(text: string, needle: string, n: number, edit: (at: number) => string): string | null {
  const hits: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) hits.push(at);
  if (hits.length === 0) return null;
  return edit(hits[n % hits.length] as number);
}

type Tamper = (m: Json, e: Json, n: number) => { manifest: Uint8Array; exported: Uint8Array } | null;
/** The canonical bytes of a (tampered) document. */
export const canon = (v: unknown) => enc(canonicalJsonUnchecked(v));
const relink = (m: Json, e: Json) => {
  e.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(m));
  return { manifest: canon(m), exported: canon(e) };
};

const TAMPERS: Record<string, Tamper> = {
  "wrong counts": (m, e) => {
    m.counts.admitted += 1;
    return relink(m, e);
  },
  "wrong duplicate_ids": (m, e) => {
    m.counts.duplicate_ids += 1;
    return relink(m, e);
  },
  "records_total": (m, e) => {
    m.run.records_total += 1;
    return relink(m, e);
  },
  "export record missing": (m, e, n) => {
    if (e.records.length === 0) return null;
    e.records.splice(n % e.records.length, 1);
    return { manifest: canon(m), exported: canon(e) };
  },
  "export record extra (held index, in order)": (m, e, n) => {
    const held = m.records.filter((r: Json) => r.admission !== "admitted").map((r: Json) => r.index);
    if (held.length === 0) return null;
    const index = held[n % held.length];
    const copy = { index, id: null, source: null, sha256: "0".repeat(64), material_sha256: "0".repeat(64), metadata: {}, text: "x" };
    e.records.push(copy);
    e.records.sort((a: Json, b: Json) => a.index - b.index);
    return { manifest: canon(m), exported: canon(e) };
  },
  "export record beyond the manifest": (m, e) => {
    e.records.push({ index: m.records.length + 3, id: null, source: null, sha256: "a", material_sha256: "b", metadata: {}, text: "x" });
    return { manifest: canon(m), exported: canon(e) };
  },
  "export record malformed": (m, e, n) => {
    if (e.records.length === 0) return null;
    e.records[n % e.records.length] = n % 2 === 0 ? "oops" : { index: "1" };
    return { manifest: canon(m), exported: canon(e) };
  },
  "export records duplicated (out of order)": (m, e) => {
    if (e.records.length === 0) return null;
    e.records.push(e.records[0]);
    return { manifest: canon(m), exported: canon(e) };
  },
  "hash mismatch": (m, e) => {
    e.manifest_sha256 = "f".repeat(64);
    return { manifest: canon(m), exported: canon(e) };
  },
  "manifest record forged state": (m, e, n) => {
    if (m.records.length === 0) return null;
    const r = m.records[n % m.records.length];
    r.detection = r.detection === "none" ? "block" : "none";
    return relink(m, e);
  },
  "manifest record off-schema (first issue path)": (m, e, n) => {
    if (m.records.length === 0) return null;
    m.records[n % m.records.length].extra = 1;
    if (n % 3 === 0) m.started_at = 5;
    if (n % 4 === 0) m.extra_top = true;
    return relink(m, e);
  },
  "manifest record not an object": (m, e, n) => {
    if (m.records.length === 0) return null;
    m.records[n % m.records.length] = [1, 2];
    return relink(m, e);
  },
  "manifest records not an array": (m, e) => {
    m.records = { a: 1 };
    return relink(m, e);
  },
  "export text changed": (m, e, n) => {
    if (e.records.length === 0) return null;
    e.records[n % e.records.length].text += "!";
    return { manifest: canon(m), exported: canon(e) };
  },
  "export unknown fields": (m, e, n) => {
    e.extra = [{}, { a: [1] }];
    if (e.records.length > 0) e.records[n % e.records.length].more = { x: 1 };
    return { manifest: canon(m), exported: canon(e) };
  },
  "manifest pretty-printed": (m, e) => ({ manifest: enc(JSON.stringify(m, null, 2)), exported: canon(e) }),
  "manifest members out of canonical order": (m, e) => {
    const { records, ...rest } = m;
    return { manifest: enc(JSON.stringify({ records, ...rest })), exported: canon(e) };
  },
  "lone surrogate in a manifest string": (m, e, n) => {
    if (m.records.length === 0) return null;
    const text = editAt(canonicalJsonUnchecked(m), '"detail":', n, (at) => {
      const t = canonicalJsonUnchecked(m);
      return `${t.slice(0, at)}"x\\ud800":1,${t.slice(at)}`;
    });
    return text === null ? null : { manifest: enc(text), exported: canon(e) };
  },
};

/** Byte-level tampering of the written bytes. */
type ByteTamper = (manifest: Uint8Array, exported: Uint8Array, n: number, b: number) => { manifest: Uint8Array; exported: Uint8Array } | null;
const splice = (bytes: Uint8Array, at: number, remove: number, insert: number[]) =>
  Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at + remove)]);

/** Damage done to a pair's bytes, by name (null: nothing to damage in this pair). */
export const BYTE_TAMPERS: Record<string, ByteTamper> = {
  "byte flip in the manifest": (m, e, n, b) => ({ manifest: splice(m, n % m.length, 1, [b]), exported: e }),
  "byte flip in the export": (m, e, n, b) => ({ manifest: m, exported: splice(e, n % e.length, 1, [b]) }),
  "truncated manifest": (m, e, n) => ({ manifest: m.subarray(0, n % m.length), exported: e }),
  "truncated export": (m, e, n) => ({ manifest: m, exported: e.subarray(0, n % e.length) }),
  "invalid UTF-8 in the export": (m, e, n, b) => ({ manifest: m, exported: splice(e, n % e.length, 0, [0xc0 | (b & 0x1f)]) }),
  "invalid UTF-8 then a duplicate key": (m, e, n) => {
    const text = editAt(dec(e), '"text":', n, (at) => `${dec(e).slice(0, at)}"text":"x",${dec(e).slice(at)}`);
    return text === null ? null : { manifest: splice(m, n % m.length, 0, [0xff]), exported: enc(text) };
  },
  "duplicate key deep in a manifest record": (m, e, n) => {
    const text = editAt(dec(m), '"exercised":', n, (at) => `${dec(m).slice(0, at)}"exercised":true,${dec(m).slice(at)}`);
    return text === null ? null : { manifest: enc(text), exported: e };
  },
  "duplicate key after unescaping in an export record": (m, e, n) => {
    const text = editAt(dec(e), '"text":', n, (at) => `${dec(e).slice(0, at)}"\\u0074ext":"Forged",${dec(e).slice(at)}`);
    return text === null ? null : { manifest: m, exported: enc(text) };
  },
  "byte order mark": (m, e) => ({ manifest: Uint8Array.from([0xef, 0xbb, 0xbf, ...m]), exported: e }),
  "non-JSON whitespace": (m, e, n) => ({ manifest: m, exported: n % 2 === 0 ? enc(`\u00a0${dec(e)}`) : enc(`${dec(e)}\u2028`) }),
};

/** The four agreement properties, by name: `verifyStreamProperties` defines all or some of them. */
export type StreamProperty = "genuine pairs" | "allow-listed admissions" | "tampered documents" | "tampered bytes";

const ALL_PROPERTIES: readonly StreamProperty[] = ["genuine pairs", "allow-listed admissions", "tampered documents", "tampered bytes"];

/**
 * The agreement properties named in `properties` (all four by default: genuine pairs, allow-listed
 * admissions, tampered documents, tampered bytes), each pair read in reads of one of `chunks`
 * bytes. A suite may split them over files so that two cores check them at once.
 */
export function verifyStreamProperties(chunks: readonly number[], properties: readonly StreamProperty[] = ALL_PROPERTIES): void {
  const property = (name: StreamProperty, title: string, body: () => Promise<void>, timeout?: number): void => {
    if (properties.includes(name)) it(title, body, timeout);
  };
  property(
    "genuine pairs",
    "random genuine pairs (and manifests alone) agree, in any chunk size",
    async () => {
      const dir = await tempDir();
      await fc.assert(
        fc.asyncProperty(runArb(chunks), async ({ inputs, small, chunk, version }) => {
          const run = makeRun(inputs, small, version);
          const mode = await agree(dir, run.manifest.bytes, run.exported!.bytes, chunk);
          expect(mode).toBe("streamed");
          expect(await agree(dir, run.manifest.bytes, null, chunk)).toBe("streamed");
          const result = await verifyFiles({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json"), chunkBytes: chunk });
          expect(result.consistent).toBe(true);
        }),
        { numRuns: 40 },
      );
      // One byte at a time, for a small pair.
      const run = makeRun(
        [
          { id: "é", source: null, metadata: { "ключ": "😀" }, text: "two 😀 words" },
          { id: null, source: null, metadata: {}, text: "BLOCK" },
        ],
        true,
      );
      expect(await agree(dir, run.manifest.bytes, run.exported!.bytes, 1)).toBe("streamed");
    },
    240_000,
  );

  property(
    "allow-listed admissions",
    "random pairs with allow-listed admissions agree streamed and whole, and --no-allowlisted agrees too",
    async () => {
      const dir = await tempDir();
      let allowlisted = 0;
      await fc.assert(
        fc.asyncProperty(
          runArb(chunks),
          fc.array(fc.constantFrom("none", "record", "segment"), { maxLength: 8 }),
          async ({ inputs, small, chunk, version }, scopes) => {
            const policy = resolvePolicy(
              small ? { segment_chars: 10, segment_overlap: 2, max_segments: 20, stop_after_hold: false } : { stop_after_hold: false },
            );
            // Each valid input listed by its material hash, by all its segments' hashes, or not at all.
            const entries = inputs.flatMap((input, i) => {
              if ("malformed" in input || scopes[i] === undefined || scopes[i] === "none") return [];
              const listed = { reason: "reviewed", by: "tester" };
              if (scopes[i] === "record") return [{ sha256: materialSha256(input), scope: "record", ...listed }];
              const plan = planSegments(input, policy);
              return [...new Set(plan.segments.map((s) => s.sha256))].map((sha256) => ({ sha256, scope: "segment", ...listed }));
            });
            const unique = [...new Map(entries.map((e) => [`${e.scope}:${e.sha256}`, e])).values()];
            const run = synthRun(inputs, { policy, allowlist: parseAllowlist(enc(JSON.stringify(unique))), manifestVersion: version });
            allowlisted += run.manifest.document.counts.allowlisted ?? 0;
            expect(await agree(dir, run.manifest.bytes, run.exported!.bytes, chunk)).toBe("streamed");
            expect(await agree(dir, run.manifest.bytes, null, chunk)).toBe("streamed");
            const files = { manifest: join(dir, "manifest.json"), export: join(dir, "export.json"), chunkBytes: chunk };
            const plain = await verifyFiles(files);
            expect(plain).toMatchObject({ consistent: true, allowlisted: run.manifest.document.counts.allowlisted ?? 0 });
            const refused = await verifyFiles({ ...files, refuseAllowlisted: true });
            expect(refused.problems).toEqual(verifyExport(run.exported!.bytes, run.manifest.bytes, { refuseAllowlisted: true }));
            expect(refused.consistent).toBe((run.manifest.document.counts.allowlisted ?? 0) === 0);
          },
        ),
        {
          numRuns: 40,
          // Random runs may list no held record; these two always admit one by the allowlist (by its
          // material hash, by its segments' hashes), so the count below never rests on chance.
          examples: [
            [{ inputs: [{ id: "a", source: null, metadata: {}, text: "BLOCK this one" }], small: false, chunk: chunks[0] as number, version: 1 }, ["record"]],
            [
              { inputs: [{ id: "b", source: null, metadata: {}, text: "plain words then BLOCK" }], small: true, chunk: chunks.at(-1) as number, version: 3 },
              ["segment"],
            ],
          ],
        },
      );
      // The property saw allow-listed admissions, not only runs without any.
      expect(allowlisted).toBeGreaterThan(0);
    },
    240_000,
  );

  // One test a tamper: the whole list in one test took 126 s of its 240 s on a loaded machine in
  // reads of a few bytes.
  for (const [name, tamper] of Object.entries(TAMPERS)) {
    property(
      "tampered documents",
      `tampered documents get the same problems, codes and messages: ${name}`,
      async () => {
        const dir = await tempDir();
        await fc.assert(
          // v1 manifests: these tampers edit v1's fields (a record's `index`, `admission`), which a
          // v3 record leaves out when they follow from its position and its other fields.
          fc.asyncProperty(runArb(chunks), fc.nat(), async ({ inputs, small, chunk }, n) => {
            const run = makeRun(inputs, small);
            const pair = tamper(structuredClone(run.manifest.document) as Json, structuredClone(run.exported!.document) as Json, n);
            if (pair === null) return;
            await agree(dir, pair.manifest, pair.exported, chunk);
            await agree(dir, pair.manifest, null, chunk);
          }),
          { numRuns: 10 },
        );
      },
      240_000,
    );
  }

  property(
    "tampered bytes",
    "byte flips, truncation, invalid UTF-8 and deep duplicate keys agree",
    async () => {
      const dir = await tempDir();
      for (const [name, tamper] of Object.entries(BYTE_TAMPERS)) {
        await fc.assert(
          fc.asyncProperty(runArb(chunks), fc.nat(), fc.integer({ min: 0, max: 255 }), async ({ inputs, small, chunk, version }, n, b) => {
            const run = makeRun(inputs.length === 0 ? [{ id: "x", source: null, metadata: {}, text: "t" }] : inputs, small, version);
            const pair = tamper(run.manifest.bytes, run.exported!.bytes, n, b);
            if (pair === null) return;
            try {
              await agree(dir, pair.manifest, pair.exported, chunk);
            } catch (error) {
              throw new Error(`${name}: ${(error as Error).message}`);
            }
          }),
          { numRuns: 15 },
        );
      }
      // Most tampered pairs were checked by streaming, not by the whole-document fallback.
      expect(stats.streamed).toBeGreaterThan(stats.whole * 4);
    },
    240_000,
  );
}
