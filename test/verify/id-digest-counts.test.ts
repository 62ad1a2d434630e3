// The id digests verify counts repeated ids with (src/verify/id-digests.ts), as the two threads of
// a large pair's read use them (pair-share.ts): counts taken apart and absorbed equal the counts of
// the whole, duplicate ids across the parts included, in memory, on disk and in any mix of the two;
// digests a manifest chooses to collide are spread and counted exactly; a temporary directory that
// cannot be written leaves the count unknown, never wrong. (Apart from pair-share.test.ts so that
// the two files run at once.)
import { readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hash.js";
import { countRecords, RecordCounter } from "../../src/documents/counts.js";
import { HOLD_REASONS } from "../../src/documents/schemas.js";
import { IdDigestTally, newBucketKey } from "../../src/verify/id-digests.js";
import { tempDir } from "./verify-stream-properties.js";

describe("counts taken apart and absorbed", () => {
  const digestArb = fc.oneof(fc.constantFrom("a", "b", "ключ"), fc.constantFrom(...["0", "1", "f"].map((c) => c.repeat(64))));

  it("equal the counts of the whole, duplicate ids across the parts included", () => {
    const recordArb = fc.record({
      admission: fc.constantFrom("admitted", "held"),
      admission_basis: fc.constantFrom(undefined, "allowlist"),
      hold_reasons: fc.subarray([...HOLD_REASONS]),
      detection: fc.constantFrom("none", "flag", "block", "not_checked"),
      coverage: fc.constantFrom("complete", "partial", "none"),
      id_sha256: fc.option(digestArb, { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 12 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (records, inFirst) => {
        const key = newBucketKey();
        const part = (keep: boolean) => {
          const ids = new IdDigestTally({ key, maxInMemory: 2 });
          const counter = new RecordCounter((digest) => {
            ids.add(digest);
            return false;
          });
          records.forEach((r, i) => inFirst[i] === keep && counter.add(r));
          return { ids, counter };
        };
        const [here, there] = [part(true), part(false)];
        here.counter.absorb(there.counter.counts());
        here.ids.absorb(there.ids.state());
        expect({ ...here.counter.counts(), duplicate_ids: here.ids.repeats() }).toEqual(countRecords(records));
        here.ids.close();
      }),
    );
  });

  it("a tally that absorbed another's digests in memory counts repeats exactly, also when it takes more or is absorbed itself", () => {
    const digests = fc.array(fc.constantFrom("a", "b", "c", "ключ", "0".repeat(64), "f".repeat(64), "1".repeat(64)), { maxLength: 10 });
    fc.assert(
      fc.property(digests, digests, digests, digests, fc.integer({ min: 0, max: 12 }), (first, second, later, third, maxInMemory) => {
        const key = newBucketKey();
        const tally = (added: readonly string[]) => {
          const t = new IdDigestTally({ key, maxInMemory });
          for (const d of added) t.add(d);
          return t;
        };
        const [here, there, other] = [tally(first), tally(second), tally(third)];
        here.absorb(there.state());
        const all = [...first, ...second];
        expect(here.repeats()).toBe(all.length - new Set(all).size);
        // Taking more after the absorb, then being absorbed into a third tally.
        for (const d of later) here.add(d);
        const taken = [...all, ...later];
        expect(here.repeats()).toBe(taken.length - new Set(taken).size);
        other.absorb(here.state());
        const everything = [...all, ...later, ...third];
        expect(other.repeats()).toBe(everything.length - new Set(everything).size);
        for (const t of [here, there, other]) t.close();
      }),
      { numRuns: 300, seed: 6 },
    );
  });

  it("counts exactly when the bucket files take many buffers' worth of digests", () => {
    // 400,000 digests over 256 buckets: about 1,560 each, three buffers' worth and more.
    const digest = (n: number) => sha256Hex(`id-${n}`);
    const here = new IdDigestTally({ maxInMemory: 1000 });
    for (let n = 0; n < 300_000; n++) here.add(digest(n));
    for (let n = 0; n < 100_000; n++) here.add(digest(n * 3));
    expect(here.repeats()).toBe(100_000);
    expect(here.failure).toBeNull();
    here.close();
  });

  it("counts exactly in memory across many doublings of the table, and writes no file", async () => {
    const parent = await tempDir();
    const digest = (n: number) => sha256Hex(`id-${n}`);
    const here = new IdDigestTally({ parent });
    // 60,000 distinct here, a third of them again; ids that are not digests too (hashed to keys).
    for (let n = 0; n < 60_000; n++) here.add(digest(n));
    for (let n = 0; n < 20_000; n++) here.add(digest(n * 3));
    for (const id of ["a", "a", "ключ", "A".repeat(64), "a".repeat(64), "a".repeat(64)]) here.add(id);
    // A digest and the id that is its hex text are different ids, kept apart by their tags.
    here.add(sha256Hex("a"));
    expect(here.repeats()).toBe(20_000 + 2);
    expect(here.state().dirs).toEqual([]);
    expect(readdirSync(parent)).toEqual([]);
    here.close();
  });

  it("a tally at its most held stays in memory through repeats, and the next new digest sends all to disk", async () => {
    const parent = await tempDir();
    const here = new IdDigestTally({ parent, maxInMemory: 3 });
    for (const id of ["a", "b", "c", "a", "b", "c", "c"]) here.add(id);
    expect(here.state().dirs).toEqual([]);
    here.add("d");
    expect(here.state().dirs).toHaveLength(1);
    here.add("a");
    expect(here.repeats()).toBe(5);
    here.close();
    expect(readdirSync(parent)).toEqual([]);
  });

  it("one id repeated past a bucket file's read size is counted from the file in pieces", async () => {
    const parent = await tempDir();
    const here = new IdDigestTally({ parent, maxInMemory: 0 });
    // 100,000 keys of 33 bytes in one bucket file: about three of its reads.
    for (let n = 0; n < 100_000; n++) here.add("the same id");
    here.add("another id");
    expect(here.repeats()).toBe(99_999);
    here.close();
  });

  it("digests that share all but their last bytes are counted exactly in memory and on disk", async () => {
    // A manifest chooses its digests: had the slot been a byte of the digest, these would all
    // probe one run of slots. Counted the same whichever way they are kept.
    const parent = await tempDir();
    const common = "cd".repeat(30);
    const ids = Array.from({ length: 5000 }, (_, n) => `${common}${n.toString(16).padStart(4, "0")}`);
    for (const maxInMemory of [undefined, 100]) {
      const here = new IdDigestTally({ parent, ...(maxInMemory === undefined ? {} : { maxInMemory }) });
      for (const id of [...ids, ...ids.slice(0, 1234)]) here.add(id);
      expect(here.repeats()).toBe(1234);
      here.close();
    }
    expect(readdirSync(parent)).toEqual([]);
  });

  it("digests that differ only in their last bytes are spread over many bucket files", async () => {
    // A manifest chooses its digests: had the bucket been a byte of the digest, these would all
    // share one file. The table drawn from the random key spreads them (about 160 of 256 expected).
    const parent = await tempDir();
    const here = new IdDigestTally({ maxInMemory: 0, parent });
    const common = "ab".repeat(31);
    for (let n = 0; n < 256; n++) here.add(`${common}${n.toString(16).padStart(2, "0")}`);
    const { dirs } = here.state();
    expect(dirs).toHaveLength(1);
    expect(readdirSync(dirs[0] as string).length).toBeGreaterThan(100);
    expect(here.repeats()).toBe(0);
    here.close();
  });

  it("a temporary directory that cannot be made or written leaves the count unknown, without throwing", async () => {
    const parent = await tempDir();
    const notADirectory = join(parent, "file");
    await writeFile(notADirectory, "");
    const here = new IdDigestTally({ maxInMemory: 1, parent: notADirectory });
    for (const digest of ["a", "b", "c", "a"]) here.add(digest);
    expect(here.repeats()).toBeNull();
    expect(here.failure).toBe("ENOTDIR");
    // Absorbed into a tally that works, the failure carries over.
    const there = new IdDigestTally();
    there.add("a");
    there.absorb(here.state());
    expect(there.repeats()).toBeNull();
    there.close();
  });

  it("repeated id digests are counted the same held in memory or on disk, and the files are removed", async () => {
    const parent = await tempDir();
    fc.assert(
      fc.property(fc.array(digestArb, { maxLength: 20 }), fc.array(digestArb, { maxLength: 20 }), fc.nat(4), fc.nat(4), (mine, theirs, keptHere, keptThere) => {
        const key = newBucketKey();
        const here = new IdDigestTally({ key, maxInMemory: keptHere, parent });
        const there = new IdDigestTally({ key, maxInMemory: keptThere, parent });
        for (const digest of mine) here.add(digest);
        for (const digest of theirs) there.add(digest);
        here.absorb(there.state());
        const all = [...mine, ...theirs];
        expect(here.repeats()).toBe(all.length - new Set(all).size);
        here.close();
        expect(readdirSync(parent)).toEqual([]);
      }),
    );
  });
});
