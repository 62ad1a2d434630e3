// A schema compiled to a predicate accepts exactly what zod accepts: over genuine v1, v2 and v3
// manifest records and export records, and over the same records damaged at any depth (a key
// removed or added, a value replaced by one of another type, range or form). Where it accepts,
// the compiled safeParse returns the value itself, equal to zod's output.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileCheck } from "../../src/core/schema-check.js";
import { ManifestRecordV2Schema } from "../../src/documents/manifest-v2.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { ExportRecordSchema, ManifestRecordSchema } from "../../src/documents/schemas.js";
import { VerdictJsonSchema } from "../../src/documents/verdict-schema.js";
import { reparse, synthRun, type SynthInput } from "../support/run-data.js";

const POLICY = resolvePolicy({ segment_chars: 40, segment_overlap: 8, max_segments: 4 });
// Keywords of the scripted canary (test/support/run-data.ts): a pass, a structural hit, a block, a
// flag, a degraded and an unexercised verdict, and a check that raised.
const WORDS = ["plain words here", "STRUCT", "BLOCK", "FLAG", "DEGRADE", "NORISK", "NOCANARY", "RAISE"] as const;
const INPUTS: SynthInput[] = [
  ...WORDS.map((word, i) => ({
    id: `doc-${i}`,
    source: i % 2 === 0 ? "kb/a.md" : null,
    metadata: (i % 3 === 0 ? { lang: "en", title: word } : {}) as Record<string, string>,
    text: `${word} and then ${word}`,
  })),
  { id: null, source: null, metadata: {}, text: "x".repeat(400) },
  { malformed: { text: "", detail: "record: 'text' must be a non-empty string" } },
];

/** The records of the same run written as each manifest version, and its export records. */
function genuine(): { v1: unknown[]; compact: unknown[]; exported: unknown[] } {
  const v1 = reparse(synthRun(INPUTS, { policy: POLICY }));
  const v2 = reparse(synthRun(INPUTS, { policy: POLICY, manifestVersion: 2 }));
  const v3 = reparse(synthRun(INPUTS, { policy: POLICY, manifestVersion: 3 }));
  return {
    v1: v1.manifest.document.records,
    compact: [...v2.manifest.document.records, ...v3.manifest.document.records],
    exported: v1.exported?.document.records ?? [],
  };
}

type Path = ReadonlyArray<string | number>;

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: unknown, at: Path = []): Path[] {
  const paths: Path[] = [at];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...at, i])));
  else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...at, key]));
  return paths;
}

// Values a damaged field may take: each type, and the edges the schemas draw (negative, fractional,
// unsafe and huge numbers, empty and non-hex strings, an empty and an over-long array).
const REPLACEMENTS: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  1e308,
  "",
  "x",
  "a".repeat(64),
  "A".repeat(64),
  "pass",
  "structural_filter",
  [],
  ["x"],
  Array.from({ length: 40 }, () => "s"),
  {},
  { start: 3, end: 1 },
];

type Damage = { kind: "replace"; value: unknown } | { kind: "remove" } | { kind: "add"; key: string; value: unknown };

/** `record` with one damage at `path` (a copy; removing or adding needs an object or array there). */
function damaged(record: unknown, path: Path, damage: Damage): unknown {
  const copy = structuredClone(record);
  if (path.length === 0) return damage.kind === "replace" ? damage.value : copy;
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy);
  const last = path[path.length - 1] as string | number;
  if (damage.kind === "replace") parent[last] = damage.value;
  else if (damage.kind === "remove") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    const target = parent[last];
    if (target !== null && typeof target === "object" && !Array.isArray(target)) target[damage.key] = damage.value;
    else if (Array.isArray(target)) target.push(damage.value);
  }
  return copy;
}

/** Every damage tried at every path: each replacement, removal, and each extra key with a few values. */
const DAMAGES: Damage[] = [
  ...REPLACEMENTS.map((value) => ({ kind: "replace" as const, value })),
  { kind: "remove" },
  ...["extra", "index", "verdict", "reused", "__proto__"].flatMap((key) =>
    [null, "x", {}, { start: 3, end: 1 }].map((value) => ({ kind: "add" as const, key, value })),
  ),
];

/** Every record damaged every way at every path: the compiled check and zod give the same answer. */
function expectAgreement(schema: z.ZodType, records: readonly unknown[]): void {
  const compiled = compileCheck(schema);
  let refused = 0;
  let tried = 0;
  for (const record of records) {
    for (const path of pathsOf(record)) {
      for (const damage of DAMAGES) {
        const value = damaged(record, path, damage);
        const zodAccepts = schema.safeParse(value).success;
        if (compiled.check(value) !== zodAccepts) expect.fail(`disagree at ${JSON.stringify(path)} after ${JSON.stringify(damage)}`);
        tried++;
        if (!zodAccepts) refused++;
      }
    }
  }
  // Both answers occur often, so the agreement is not the trivial one.
  expect(refused).toBeGreaterThan(tried / 4);
  expect(tried - refused).toBeGreaterThan(tried / 20);
}

describe("a zod schema compiled to a predicate", () => {
  const { v1, compact, exported } = genuine();

  it("hands no node of a manifest record's schema to zod, and only the metadata map of an export record's", () => {
    expect(compileCheck(ManifestRecordSchema).delegated).toEqual([]);
    expect(compileCheck(ManifestRecordV2Schema).delegated).toEqual([]);
    expect(compileCheck(VerdictJsonSchema).delegated).toEqual([]);
    expect(compileCheck(ExportRecordSchema).delegated).toEqual(["pipe"]);
  });

  it("accepts every genuine record; its compiled safeParse returns it when nothing is handed to zod, else zod's copy", () => {
    expect(v1.length).toBe(INPUTS.length);
    expect(exported.length).toBeGreaterThan(0);
    for (const [schema, records] of [
      [ManifestRecordSchema, v1],
      [ManifestRecordV2Schema, compact],
      [ExportRecordSchema, exported],
    ] as const) {
      const compiled = compileCheck(schema);
      for (const record of records) {
        expect(compiled.check(record)).toBe(true);
        const fast = compiled.safeParse(record);
        expect(fast.success).toBe(true);
        // The export record's metadata map is zod's (a pipe that copies it): its output is zod's own.
        if (compiled.delegated.length === 0) expect(fast.data).toBe(record);
        else expect(fast.data).not.toBe(record);
        expect(fast.data).toEqual(schema.parse(record));
      }
    }
  });

  it("agrees with zod on v1 manifest records damaged at any depth", () => expectAgreement(ManifestRecordSchema, v1));
  it("agrees with zod on compact (v2, v3) manifest records damaged at any depth", () => expectAgreement(ManifestRecordV2Schema, compact));
  it("agrees with zod on export records damaged at any depth", () => expectAgreement(ExportRecordSchema, exported));

  it("refuses what zod refuses for a value of the wrong kind at the root", () => {
    const compiled = compileCheck(ManifestRecordSchema);
    for (const value of [null, undefined, 1, "x", [], [v1[0]], new Map()]) {
      expect(compiled.check(value)).toBe(ManifestRecordSchema.safeParse(value).success);
    }
  });

  it("hands a node it does not compile to zod, which then decides", () => {
    const schema = z.strictObject({ mail: z.email(), tags: z.record(z.string(), z.int()), n: z.number().multipleOf(2) });
    const compiled = compileCheck(schema);
    expect(compiled.delegated.length).toBe(3);
    expect(compiled.check({ mail: "a@b.example", tags: { x: 1 }, n: 4 })).toBe(true);
    expect(compiled.check({ mail: "not mail", tags: { x: 1 }, n: 4 })).toBe(false);
    expect(compiled.check({ mail: "a@b.example", tags: { x: "1" }, n: 4 })).toBe(false);
    expect(compiled.check({ mail: "a@b.example", tags: {}, n: 3 })).toBe(false);
  });

  it("measures a string's length in code points and an array's in elements, as zod does", () => {
    const schema = z.strictObject({ name: z.string().min(2).max(3), tags: z.array(z.string()).min(2).max(3) });
    const compiled = compileCheck(schema);
    expect(compiled.delegated).toEqual([]);
    const names = ["ab", "abcd", "\u{1F600}", "\u{1F600}\u{1F600}", "\u{1F600}\u{1F600}\u{1F600}\u{1F600}", "a\ud800", "\udc00\ud800\udc00", "a"];
    for (const name of names) {
      for (const tags of [["x"], ["x", "y"], ["x", "y", "z", "w"]]) {
        expect(compiled.check({ name, tags })).toBe(schema.safeParse({ name, tags }).success);
      }
    }
  });

  it("counts a refinement passed only when it returns true, and reads a strict object's inherited keys as zod does", () => {
    const refined = z.strictObject({ a: z.int() }).refine((v) => v.a < 5);
    expect(compileCheck(refined).check({ a: 4 })).toBe(true);
    expect(compileCheck(refined).check({ a: 6 })).toBe(false);
    const strict = compileCheck(z.strictObject({ a: z.int() }));
    const inherited = Object.create({ extra: 1 }) as Record<string, unknown>;
    inherited["a"] = 1;
    expect(strict.check(inherited)).toBe(z.strictObject({ a: z.int() }).safeParse(inherited).success);
  });
});
