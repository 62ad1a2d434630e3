// Verify's two-thread read (src/verify/pair-share.ts, stream-pair.ts): the index an export
// record names is read from its first bytes exactly or not at all; counts taken apart and absorbed
// equal the counts of the whole; and the real worker thread (bundled from its source, since a
// thread cannot load TypeScript) handed its share, one handed nothing, one stopped for being handed
// too much, workers that fail as they start, and the share checked here all give the one-thread
// result, problem for problem.
import { readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { countRecords, RecordCounter } from "../../src/documents/counts.js";
import { HOLD_REASONS } from "../../src/documents/schemas.js";
import { IdDigestTally, newBucketKey } from "../../src/verify/id-digests.js";
import { exportIndexHint, manifestShare, newClaims, type PairShare } from "../../src/verify/pair-share.js";
import { verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { releaseStartedPairWorker, startPairWorkerAhead, takeStartedPairWorker } from "../../src/verify/pair-worker-start.js";
import { bundleScript, type BundledCli } from "../support/cli-child.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { synthRun } from "../support/run-data.js";
import { BYTE_TAMPERS, canon, makeRun, runArb, tempDir, type Json } from "./verify-stream-properties.js";

const hint = (text: string): number | null => exportIndexHint(Buffer.from(text, "utf8"));

describe("blocks claimed by whichever share comes to them first", () => {
  it("give each record to exactly one share, a block wholly to one, whatever order the shares ask in", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 400 }), fc.integer({ min: 1, max: 7 }), (turns, block) => {
        const claims = newClaims(600, block);
        const shares = [0, 1].map((part) => manifestShare({ part, parts: 2, block, claims } satisfies PairShare));
        const next = [0, 0];
        const owned: number[][] = [[], []];
        // Each share asks about every position in order (as its walk splits them); the two interleave.
        for (const turn of [...turns, ...turns.map((t) => !t)]) {
          const part = turn ? 1 : 0;
          const position = next[part]!++;
          if (position >= 200) continue;
          if (shares[part]!.owns(Buffer.alloc(0), position)) owned[part]!.push(position);
        }
        const asked = Math.min(next[0]!, next[1]!, 200);
        const mine = new Set(owned[0]);
        const theirs = new Set(owned[1]);
        for (let position = 0; position < asked; position++) {
          // Exactly one owner, and the same owner for the block's every record.
          expect(mine.has(position) !== theirs.has(position)).toBe(true);
          const first = position - (position % block);
          expect(mine.has(position)).toBe(mine.has(first));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("deal blocks past the claim list, and every block without one, in turn", () => {
    const claims = newClaims(3, 1);
    expect(claims.length).toBe(2);
    const first = manifestShare({ part: 0, parts: 2, block: 1, claims });
    const second = manifestShare({ part: 1, parts: 2, block: 1, claims });
    // Claimed by the first to ask, then by turn past the list's end.
    expect([0, 1, 2, 3, 4].map((p) => second.owns(Buffer.alloc(0), p))).toEqual([true, true, false, true, false]);
    expect([0, 1, 2, 3, 4].map((p) => first.owns(Buffer.alloc(0), p))).toEqual([false, false, true, false, true]);
    const alternate = manifestShare({ part: 1, parts: 2, block: 2, claims: null });
    expect([0, 1, 2, 3, 4].map((p) => alternate.owns(Buffer.alloc(0), p))).toEqual([false, false, true, true, false]);
  });
});

describe("the index an export record names, read from its first bytes", () => {
  it("is read after a null id or an id string with escaped quotes and backslashes", () => {
    expect(hint('{"id":null,"index":0,"material_sha256":"x"}')).toBe(0);
    expect(hint('{"id":"doc-a","index":42,"x":1}')).toBe(42);
    expect(hint('{"id":"a\\"b","index":7,"x":1}')).toBe(7);
    expect(hint('{"id":"a\\\\","index":8,"x":1}')).toBe(8);
    expect(hint('{"id":"\\\\\\"\\\\","index":9,"x":1}')).toBe(9);
    expect(hint('{"id":"ключ 😀","index":123456789012345,"x":1}')).toBe(123456789012345);
  });

  it("is refused for anything but a canonical integer right after the id", () => {
    for (const text of [
      '{"index":0,"id":null,"x":1}',
      '{"id":null,"index":01,"x":1}',
      '{"id":null,"index":-1,"x":1}',
      '{"id":null,"index":1.0,"x":1}',
      '{"id":null,"index":1e3,"x":1}',
      '{"id":null,"index":"1","x":1}',
      '{"id":null,"index":1}',
      '{"id":null,"index":1234567890123456,"x":1}',
      '{"id":null, "index":1,"x":1}',
      '{"id":nul,"index":1,"x":1}',
      '{"id":"open,"index":1,"x":1}',
      '{"id":"a\\","index":1,"x":1}',
      '{"id":1,"index":1,"x":1}',
      '{"id":null,"index":',
      "",
    ]) {
      expect(hint(text), text).toBeNull();
    }
  });

  it("agrees with JSON.parse on canonical records with any id", () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: "grapheme", maxLength: 12 }), { nil: null }), fc.nat(), (id, index) => {
        const text = canonicalJsonUnchecked({ id, index, material_sha256: "x", text: "t" });
        expect(hint(text)).toBe(index);
      }),
    );
  });
});

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

/**
 * A genuine pair, and tampered ones whose bytes stay canonical, with problems in both shares'
 * records; of a v1 manifest and of a v3 one (compact records, each checked as the v1 record it
 * stands for).
 */
function pairs(manifestVersion: 1 | 3): Array<{ name: string; manifest: Uint8Array; exported: Uint8Array }> {
  const run = synthRun(
    [
      { id: "doc-a", source: "wiki", metadata: { title: "T" }, text: "first admitted text" },
      { id: "doc-b", source: null, metadata: {}, text: "please BLOCK this one" },
      { id: "doc-a", source: null, metadata: {}, text: "a FLAG here" },
      { id: null, source: "drive", metadata: {}, text: "plain and admitted" },
      { id: "doc-c", source: null, metadata: { author: "x" }, text: "another admitted one" },
      { malformed: { text: 42, detail: "text must be a string" } },
    ],
    { policy: resolvePolicy({ segment_chars: 10, segment_overlap: 2, max_segments: 20 }), manifestVersion },
  );
  const genuine = { name: `genuine v${manifestVersion} pair`, manifest: run.manifest.bytes, exported: run.exported!.bytes };
  const tampered = (name: string, tamper: (m: Json, e: Json) => void) => {
    const m = structuredClone(run.manifest.document) as Json;
    const e = structuredClone(run.exported!.document) as Json;
    tamper(m, e);
    e.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(m));
    return { name: `v${manifestVersion} pair, ${name}`, manifest: canon(m), exported: canon(e) };
  };
  return [
    genuine,
    // Problems in both shares' records, the later share's first (records are dealt out 1 or 2 at a time).
    tampered("export texts changed in both shares", (_, e) => {
      for (const record of e.records) if (record.index === 3 || record.index === 4) record.text += "!";
    }),
    tampered("verdicts and schema issues in both shares", (m) => {
      for (const at of [1, 2]) m.records[at].detection = m.records[at].detection === "none" ? "block" : "none";
      // The first schema issue is in the later share's record (3), another in the earlier one's (4).
      m.records[3].extra = 1;
      m.records[4].extra = 1;
      m.counts.admitted += 1;
    }),
    tampered("an export record removed", (_, e) => e.records.splice(1, 1)),
    // A record of the other version's shape (v1 records name their index, v3 records do not).
    tampered("a record of the other version's shape", (m) => {
      if (manifestVersion === 1) delete m.records[3].index;
      else m.records[3].index = 3;
    }),
  ];
}

describe("two threads give the one-thread result", () => {
  let worker: BundledCli;
  let dir: string;
  let failing: URL[];
  beforeAll(async () => {
    worker = await bundleScript(join(import.meta.dirname, "../../src/verify/pair-worker.ts"));
    dir = await tempDir();
    // Workers that fail as they start: one throws, one exits without a word.
    failing = await Promise.all(
      ["throw new RangeError('stand-in failure');", "process.exit(3);"].map(async (body, i) => {
        const path = join(dir, `failing-${i}.mjs`);
        await writeFile(path, `${body}\n`);
        return pathToFileURL(path);
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await worker?.dispose();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** The pair written to files of its own under the suite's directory. */
  const written = async (pair: { manifest: Uint8Array; exported: Uint8Array }): Promise<{ manifest: string; export: string }> => {
    const at = await mkdtemp(join(dir, "pair-"));
    const paths = { manifest: join(at, "manifest.json"), export: join(at, "export.json") };
    await writeFile(paths.manifest, pair.manifest);
    await writeFile(paths.export, pair.exported);
    return paths;
  };

  // One test a pair, each with the whole matrix: a thread started for each case of each pair
  // takes seconds on a busy machine, and one test for all of them came near its timeout.
  it.each([...pairs(1), ...pairs(3)].map((pair) => [pair.name, pair] as const))(
    "%s: on a worker thread, on a worker that fails and on this thread",
    async (name, pair) => {
      const paths = await written(pair);
      const one = await verifyFilesWithMode(paths, "canonical", null);
      expect(one.reader).toBe("canonical");
      // The genuine pair verifies; each tampered one does not.
      expect(one.result.consistent).toBe(name.startsWith("genuine"));
      const real = pathToFileURL(worker.entry);
      for (const url of [real, ...failing, null]) {
        // A worker that fails as it starts is handed blocks until it is seen to fail, and this
        // thread then checks them from the files: one setting (its digests on disk) is enough for those.
        const settings = [
          [1, undefined],
          [2, 0],
          [256, 1],
        ].filter(([block]) => url === null || !failing.includes(url) || block === 2);
        for (const [block, maxIdsInMemory] of settings) {
          // With 0 or 1 id digest held in memory, both shares' digests go to disk.
          const where: string[] = [];
          const two = await verifyFilesWithMode(paths, "canonical", {
            url,
            block: block as number,
            ...(maxIdsInMemory === undefined ? {} : { maxIdsInMemory }),
            onSecondShare: (at) => where.push(at),
          });
          expect(two.result).toEqual(one.result);
          expect(two.reader).toBe("canonical");
          expect(two.mode).toBe(one.mode);
          // The real worker's findings are the ones taken, not the fallback's; a failed one's never.
          expect(where).toEqual([url === real ? "worker" : "here"]);
        }
      }
    },
    60_000,
  );

  it("pairs damaged in their bytes, every kind of damage, give the one-thread result with the worker handed its share", async () => {
    const url = pathToFileURL(worker.entry);
    for (const [kind, tamper] of Object.entries(BYTE_TAMPERS)) {
      // Four runs of each kind, drawn the same every time; the worker meets the damage or is stopped when this thread does.
      for (const [{ inputs, small, chunk, version }, n, b] of fc.sample(fc.tuple(runArb([7, 64, 4096]), fc.nat(), fc.integer({ min: 0, max: 255 })), {
        numRuns: 4,
        seed: 28,
      })) {
        const run = makeRun(inputs.length === 0 ? [{ id: "x", source: null, metadata: {}, text: "t" }] : inputs, small, version);
        const pair = tamper(run.manifest.bytes, run.exported!.bytes, n, b);
        if (pair === null) continue;
        const paths = await written({ manifest: pair.manifest, exported: pair.exported });
        const one = await verifyFilesWithMode({ ...paths, chunkBytes: chunk }, "canonical", null);
        const two = await verifyFilesWithMode({ ...paths, chunkBytes: chunk }, "canonical", { url, block: 1 });
        expect({ kind, result: two.result, mode: two.mode, reader: two.reader }).toEqual({ kind, result: one.result, mode: one.mode, reader: one.reader });
      }
    }
  }, 120_000);

  it("a worker handed no block, and one stopped for being handed too much, give the one-thread result", async () => {
    const url = pathToFileURL(worker.entry);
    for (const pair of [...pairs(1), ...pairs(3)]) {
      const paths = await written(pair);
      const one = await verifyFilesWithMode(paths, "canonical", null);
      // A window of 0: the worker never takes a block and answers with an empty share.
      // A most of 1 byte: the first element handed on stops the worker; its blocks are checked here.
      for (const [feedLimits, expected] of [
        [{ window: 0, most: 1 << 20 }, "worker"],
        [{ window: 1 << 30, most: 1 }, "here"],
      ] as const) {
        // Without the export's hash a stopped worker's pair is read again whole here; with it (a
        // sharded run's index asks for it), only the worker's blocks are, held to the same bytes by the hashes.
        for (const hashExport of [false, true]) {
          const where: string[] = [];
          const two = await verifyFilesWithMode(paths, "canonical", { url, block: 1, feedLimits, onSecondShare: (at) => where.push(at) }, hashExport);
          expect(two.result).toEqual(one.result);
          expect(where).toEqual([expected]);
          expect(two.documents.exportSha256).toBe(hashExport ? sha256Hex(pair.exported) : null);
        }
      }
      // Read 64 bytes at a time, a batch (256 KiB of buffer) a read: the worker is stopped once
      // three of them wait unread, having checked some blocks or none; either way its blocks are
      // all checked here again and the result is the same.
      const where: string[] = [];
      const small = { ...paths, chunkBytes: 64 };
      const two = await verifyFilesWithMode(small, "canonical", {
        url,
        block: 1,
        feedLimits: { window: 1 << 30, most: 3 << 18 },
        onSecondShare: (at) => where.push(at),
      });
      expect(two.result).toEqual((await verifyFilesWithMode(small, "canonical", null)).result);
      expect(where).toHaveLength(1);
    }
  }, 60_000);

  it("a two-thread read takes the worker started ahead, also one that failed, with the one-thread result", async () => {
    for (const [k, pair] of pairs(3).entries()) {
      const paths = await written(pair);
      const one = await verifyFilesWithMode(paths, "canonical", null);
      for (const url of [pathToFileURL(worker.entry), ...failing]) {
        startPairWorkerAhead([paths.manifest, paths.export], { url, minBytes: 1 });
        // A worker that fails as it starts may have ended by now, or may end once taken: the same result either way.
        if (k === 0) await new Promise((resolve) => setTimeout(resolve, 200));
        const where: string[] = [];
        const two = await verifyFilesWithMode(paths, "canonical", { url, block: 1, onSecondShare: (at) => where.push(at) });
        expect(two.result).toEqual(one.result);
        // The real worker, started ahead, waited for its share and answered with its findings.
        expect(where).toEqual([url.href === pathToFileURL(worker.entry).href ? "worker" : "here"]);
        expect(takeStartedPairWorker(url)).toBeNull();
      }
    }
  }, 60_000);

  it("starts no worker ahead for a pair below the two-thread size, or a second while one waits, and ends one nobody took", async () => {
    const [pair] = pairs(3);
    const paths = await written(pair!);
    const url = pathToFileURL(worker.entry);
    const bytes = pair!.manifest.byteLength + pair!.exported.byteLength;
    startPairWorkerAhead([paths.manifest, paths.export], { url, minBytes: bytes + 1 });
    expect(takeStartedPairWorker(url)).toBeNull();
    // Exactly at the size: started, and a worker of another script is not what it is taken for.
    startPairWorkerAhead([paths.manifest, paths.export], { url, minBytes: bytes });
    startPairWorkerAhead([paths.manifest, paths.export], { url: failing[0]!, minBytes: 1 });
    expect(takeStartedPairWorker(failing[0]!)).toBeNull();
    await releaseStartedPairWorker();
    expect(takeStartedPairWorker(url)).toBeNull();
  }, 60_000);

  it("checks the pair on one thread, with the same result, when no temporary directory can be made", async () => {
    const [pair] = pairs(3);
    const paths = await written(pair!);
    const one = await verifyFilesWithMode(paths, "canonical", null);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(dir, "failing-0.mjs");
    try {
      expect((await verifyFilesWithMode(paths, "canonical", { url: pathToFileURL(worker.entry), block: 1 })).result).toEqual(one.result);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  }, 60_000);
});
