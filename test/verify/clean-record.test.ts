// The short way through a clean compact manifest record (verify/clean-record.ts) answers exactly as
// the general way (v2 schema, expansion by rules, v1 schema, state recomputed from the segments)
// for every record it takes, and takes the clean admissions ingest writes. Records come from
// synthesized runs of every verdict kind, then are damaged one value, key or segment at a time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolvePolicy } from "../../src/documents/policy.js";
import { expandRecordV2, passedVerdict } from "../../src/documents/manifest-v2.js";
import { cleanRecordExpansion } from "../../src/verify/clean-record.js";
import { checkManifestRecordAt, expandedRecord } from "../../src/verify/manifest-checks.js";
import { ProblemList } from "../../src/verify/problems.js";
import type { Obj, RecordBounds } from "../../src/verify/_values.js";
import { synthRun, type SynthInput } from "../support/run-data.js";

const POLICY = resolvePolicy({ segment_chars: 40, segment_overlap: 8, max_segments: 4 });
const GEOMETRY = { chars: POLICY.segment_chars, overlap: POLICY.segment_overlap };
const BOUNDS: RecordBounds = { maxSegments: POLICY.max_segments, maxMetadataKeys: POLICY.max_metadata_keys, structuralFilter: true };

const WORDS = ["plain words here", "STRUCT", "BLOCK", "FLAG", "DEGRADE", "NORISK", "NOCANARY", "RAISE"] as const;
const inputArb: fc.Arbitrary<SynthInput> = fc.oneof(
  {
    arbitrary: fc.record({
      id: fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: null }),
      source: fc.option(fc.constantFrom("kb/a.md", "web/b.html"), { nil: null }),
      metadata: fc.dictionary(fc.constantFrom("title", "lang", "author"), fc.constantFrom("Notes", "en", "ops")),
      text: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((words) => words.join(" ")),
    }),
    weight: 3,
  },
  // Clean texts of one to four segments (60 words: 119 characters, four windows of 40 overlapping by 8).
  { arbitrary: fc.integer({ min: 1, max: 60 }).map((n) => ({ id: `doc-${n}`, source: null, metadata: {}, text: "w ".repeat(n).trim() })), weight: 3 },
  { arbitrary: fc.constant({ malformed: { text: "", detail: "record: 'text' must be a non-empty string" } }), weight: 1 },
  { arbitrary: fc.constant({ id: "long", source: null, metadata: {}, text: "x".repeat(400) }), weight: 1 },
);

/** Compact records of a synthesized v3 run. */
function compactRecords(inputs: readonly SynthInput[]): Obj[] {
  const run = synthRun(inputs, { policy: POLICY, manifestVersion: 3 });
  return JSON.parse(JSON.stringify(run.manifest.document.records)) as Obj[];
}

/** What the general way makes of a compact record: the problems, the usable record, and whether its verdicts agreed. */
function generalWay(compact: Obj, position: number, bounds: RecordBounds | null) {
  const problems = new ProblemList();
  const expanded = expandedRecord(compact, position, GEOMETRY);
  const checked = checkManifestRecordAt(expanded.record, position, GEOMETRY, problems, bounds);
  return { problems: problems.items, issuePath: expanded.issuePath ?? checked.issuePath, usable: checked.usable, verdictsAgree: checked.verdictsAgree };
}

/** A value put in place of another: JSON values near and far from what a field holds. */
const replacement = fc.constantFrom<unknown>(
  null,
  0,
  -1,
  1.5,
  1e21,
  2 ** 53,
  "",
  "x",
  "A".repeat(64),
  "0".repeat(64),
  true,
  [],
  {},
  [{ latency: 0 }],
  { latency: 1 },
  "Input passed all enabled security layers; behavioral probe exercised (0.000s)",
);
const extraKey = fc.constantFrom(
  "admission",
  "hold_reasons",
  "latency",
  "summary",
  "reused",
  "checked_at",
  "index",
  "name",
  "status",
  "error",
  "state",
  "detail",
  "extra",
);

/** Every path in a JSON value (keys and indices), the root excluded. */
function pathsOf(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== "object") return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...at, key], ...pathsOf(child, [...at, key])]);
}

/** The record with one damage at one of its paths (or at its root): a value replaced, a key removed or added. */
function damaged(record: Obj, pick: number, kind: number, value: unknown, key: string): Obj {
  const copy = JSON.parse(JSON.stringify(record)) as Obj;
  const paths = [[], ...pathsOf(copy)];
  const path = paths[pick % paths.length] as Array<string | number>;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  const target = last === undefined ? copy : (parent[last] as unknown);
  if (kind === 0 && last !== undefined) parent[last] = value;
  else if (kind === 1 && last !== undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (target !== null && typeof target === "object" && !Array.isArray(target)) (target as Obj)[key] = value;
  return copy;
}

describe("the clean-record short way", () => {
  it("answers as the general way for every record it takes, genuine or damaged, and takes the clean admissions", () => {
    let taken = 0;
    let takenDamaged = 0;
    fc.assert(
      fc.property(
        fc.array(inputArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), replacement, extraKey), { maxLength: 3 }),
        fc.constantFrom<RecordBounds | null>(
          BOUNDS,
          null,
          { ...BOUNDS, structuralFilter: false },
          { ...BOUNDS, maxSegments: 1 },
          { ...BOUNDS, structuralFilter: null },
        ),
        (inputs, damages, bounds) => {
          compactRecords(inputs).forEach((genuine, position) => {
            const record = damages.reduce((r, [pick, kind, value, key]) => damaged(r, pick, kind, value, key), genuine);
            const short = cleanRecordExpansion(record, position, GEOMETRY, bounds);
            if (short === null) return;
            taken++;
            if (damages.length > 0) takenDamaged++;
            const general = generalWay(record, position, bounds);
            expect(general.problems).toEqual([]);
            expect(general.issuePath).toBeNull();
            expect(general.verdictsAgree).toBe(true);
            expect(short).toEqual(general.usable);
          });
        },
      ),
      { numRuns: 600, seed: 2812 },
    );
    // Not vacuous: genuine clean records were taken, and so were damaged ones the damage left valid.
    expect(taken).toBeGreaterThan(100);
    expect(takenDamaged).toBeGreaterThan(20);
  });

  it("answers as the general way for a clean record with any one value replaced", () => {
    const clean = compactRecords(
      [1, 17, 30, 45, 50].map(
        (n): SynthInput => ({
          id: n % 2 === 0 ? null : `doc-${n}`,
          source: n > 40 ? "kb/a.md" : null,
          metadata: n > 20 ? { lang: "en" } : {},
          text: "w ".repeat(n).trim(),
        }),
      ),
    );
    expect(clean.every((record, position) => cleanRecordExpansion(record, position, GEOMETRY, BOUNDS) !== null)).toBe(true);
    const leaves = clean.map((record) => pathsOf(record));
    let taken = 0;
    fc.assert(
      fc.property(fc.nat({ max: clean.length - 1 }), fc.nat(), fc.oneof(replacement, fc.double(), fc.integer({ min: -3, max: 300 })), (which, pick, value) => {
        const paths = leaves[which] as Array<Array<string | number>>;
        const record = damaged(clean[which] as Obj, (pick % paths.length) + 1, 0, value, "");
        const short = cleanRecordExpansion(record, which, GEOMETRY, BOUNDS);
        if (short === null) return;
        taken++;
        const general = generalWay(record, which, BOUNDS);
        expect(general.problems).toEqual([]);
        expect(general.issuePath).toBeNull();
        expect(short).toEqual(general.usable);
      }),
      { numRuns: 2000, seed: 2813 },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it("takes every genuine clean admission, and no held record", () => {
    const inputs: SynthInput[] = [
      { id: "a", source: "kb/a.md", metadata: { lang: "en" }, text: "plain words here" },
      { id: null, source: null, metadata: {}, text: "w ".repeat(40).trim() },
      { id: "b", source: null, metadata: {}, text: "FLAG this" },
      { id: "c", source: null, metadata: {}, text: "BLOCK this" },
      { id: "d", source: null, metadata: {}, text: "x".repeat(400) },
    ];
    const taken = compactRecords(inputs).map((record, position) => cleanRecordExpansion(record, position, GEOMETRY, BOUNDS) !== null);
    expect(taken).toEqual([true, true, false, false, false]);
  });

  it("a verdict of latencies alone expands to the passed verdict, with or without a summary of its own", () => {
    for (const layers of [[{ latency: 0.01 }, { latency: 0.2 }], [{ latency: 0 }]]) {
      for (const summary of [undefined, "Input passed all enabled security layers; behavioral probe exercised (0.211s)"]) {
        const verdict = { layers, total_latency: 0.2104, ...(summary === undefined ? {} : { summary }) };
        const record = { chars_total: 5, length: 5, material_sha256: "a".repeat(64), sha256: "b".repeat(64), segments: [{ verdict }] };
        const expanded = expandRecordV2(record as never, 0, GEOMETRY);
        expect(
          passedVerdict(
            layers.map((l) => l.latency),
            0.2104,
            summary,
          ),
        ).toEqual(expanded.segments[0]?.verdict);
      }
    }
  });
});
