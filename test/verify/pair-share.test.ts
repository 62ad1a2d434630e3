// Verify's two-thread read (src/verify/pair-share.ts, stream-pair.ts): the index an export
// record names is read from its first bytes exactly or not at all (the id digests' counts taken
// apart and absorbed are in id-digest-counts.test.ts); and the real worker thread (bundled from
// its source, since a thread cannot load TypeScript) handed its share, one handed nothing, one
// stopped for being handed too much, workers that fail as they start, and the share checked here
// all give the one-thread result, problem for problem.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
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
