// What the clean-pair tests share (clean-pair.test.ts, and the whole sweep in
// clean-pair.heavy.test.ts): genuine pairs, the general way's verdict on a pair of records, and the
// sweep of one-byte changes that holds the clean-pair reading to the general way.
import { expect } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import type { ManifestVersion } from "../../src/documents/manifest-v2.js";
import { planGeometry, recordBounds, type RecordBounds } from "../../src/verify/_values.js";
import { cleanPair } from "../../src/verify/clean-pair.js";
import { verifyExport } from "../../src/verify/verify-export.js";
import type { Geometry } from "../../src/documents/segment-spans.js";
import { synthRun, type SynthInput } from "../support/run-data.js";

/** Any JSON value: documents are edited the way an attacker edits files. */
export type Json = any;

/** Inputs admitted as clean pairs: labels and metadata in ASCII and beyond, texts with and without multi-byte characters. */
export const INPUTS: SynthInput[] = [
  { id: "doc-1", source: null, metadata: {}, text: "plain words ".repeat(30) },
  { id: null, source: "wiki", metadata: { author: "ann", title: "A title, with: punctuation" }, text: "Zürich 東京 😀 café" },
  { id: "é-3", source: "drive", metadata: { lang: "en", ключ: "значение 😀", "東京": "x" }, text: `${"Zürich 東京 😀 ".repeat(20)}end` },
  { id: null, source: null, metadata: {}, text: "t" },
];

/** A run of `inputs` and what cleanPair needs of its manifest; `small`: windows of 10 characters (several per record). */
export function pairOf(inputs: readonly SynthInput[], version: ManifestVersion, small: boolean) {
  const policy = small ? resolvePolicy({ segment_chars: 10, segment_overlap: 2, max_segments: 100 }) : undefined;
  const run = synthRun(inputs, { manifestVersion: version, ...(policy === undefined ? {} : { policy }) });
  const manifest: Json = JSON.parse(Buffer.from(run.manifest.bytes).toString("utf8"));
  const exported: Json = JSON.parse(Buffer.from((run.exported as { bytes: Uint8Array }).bytes).toString("utf8"));
  return { manifest, exported, geometry: planGeometry(manifest) as Geometry, bounds: recordBounds(manifest) as RecordBounds };
}

export const bytesOf = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8");
export const canonicalBytes = (value: unknown): Buffer => Buffer.from(canonicalJsonUnchecked(value), "utf8");

/** Problems of the pair with manifest record `index` and its export record replaced, verified whole (no clean-pair reading). */
export function wholeProblems(manifest: Json, exported: Json, index: number, m: unknown, e: unknown): string[] {
  const doc = structuredClone(manifest);
  doc.records[index] = m;
  const ex = structuredClone(exported);
  ex.records = ex.records.map((r: Json) => (r.index === index ? e : r));
  ex.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(doc));
  return verifyExport(canonicalBytes(ex), canonicalBytes(doc)).map((p) => p.code);
}

/** One-byte changes of `bytes`: each byte replaced by each of a set, deleted, or repeated. */
function* oneByteChanges(bytes: Buffer): Generator<Buffer> {
  const replacements = [...'019aef-+.E"\\,:}]{[ n'].map((c) => c.charCodeAt(0)).concat([0x00, 0x1f, 0x7f, 0xc3, 0xff]);
  for (let at = 0; at < bytes.length; at++) {
    for (const byte of replacements) {
      if (bytes[at] === byte) continue;
      const changed = Buffer.from(bytes);
      changed[at] = byte;
      yield changed;
    }
    yield Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    yield Buffer.concat([bytes.subarray(0, at + 1), bytes.subarray(at)]);
  }
}

/**
 * Every one-byte change of each record of `inputs` (both sides, under `version`, windows of 10
 * characters when `small`): a change cleanPair accepts must leave canonical bytes and a pair the
 * general way finds nothing wrong with. Returns how many changes were accepted and refused.
 */
export function sweepOneByteChanges(inputs: readonly SynthInput[], version: ManifestVersion, small: boolean): { accepted: number; refused: number } {
  let accepted = 0;
  let refused = 0;
  // One run per input: the general way then verifies a pair of one record for each accepted change.
  for (const input of inputs) {
    const { manifest, exported, geometry, bounds } = pairOf([input], version, small);
    expect(exported.records).toHaveLength(1);
    const e = exported.records[0];
    const m = manifest.records[e.index];
    const [mBytes, eBytes] = [bytesOf(m), bytesOf(e)];
    const sides: Array<[Generator<Buffer>, (changed: Buffer) => [Buffer, Buffer]]> = [
      [oneByteChanges(mBytes), (changed) => [changed, eBytes]],
      [oneByteChanges(eBytes), (changed) => [mBytes, changed]],
    ];
    for (const [changes, place] of sides) {
      for (const changed of changes) {
        const [mChanged, eChanged] = place(changed);
        if (cleanPair(mChanged, eChanged, e.index, geometry, bounds) === null) {
          refused++;
          continue;
        }
        accepted++;
        // Accepted bytes are canonical JSON (parsing and writing them again gives them back)…
        const mValue = JSON.parse(mChanged.toString("utf8"));
        const eValue = JSON.parse(eChanged.toString("utf8"));
        expect(canonicalBytes(mValue).equals(mChanged)).toBe(true);
        expect(canonicalBytes(eValue).equals(eChanged)).toBe(true);
        // …and a pair the general way finds nothing wrong with.
        expect(wholeProblems(manifest, exported, e.index, mValue, eValue)).toEqual([]);
      }
    }
  }
  return { accepted, refused };
}
