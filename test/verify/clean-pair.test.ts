// The clean-pair reading (src/verify/clean-pair.ts) against the general way: it reads every clean
// admission of ASCII labels, leaves the rest to the general way, and a pair it accepts after any
// one-byte change of either record is canonical and has no problem verified whole (here over two
// short records; every record of clean-pair-sweep.ts's inputs in clean-pair.heavy.test.ts).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { synthRun } from "../support/run-data.js";
import { tempDirPerTest } from "../support/temp-dir.js";
import { sha256Hex } from "../../src/core/hash.js";
import { cleanPair } from "../../src/verify/clean-pair.js";
import { bytesOf, canonicalBytes, INPUTS, pairOf, sweepOneByteChanges, wholeProblems, type Json } from "./clean-pair-sweep.js";

describe("clean pairs read from their bytes", () => {
  for (const version of [2, 3] as const) {
    for (const small of [false, true]) {
      it(`every admitted pair of ASCII labels is read, its id digest given (v${version}, ${small ? "several windows" : "one window"} per material)`, () => {
        const { manifest, exported, geometry, bounds } = pairOf(INPUTS, version, small);
        expect(exported.records).toHaveLength(INPUTS.length);
        for (const e of exported.records) {
          const pair = cleanPair(bytesOf(manifest.records[e.index]), bytesOf(e), e.index, geometry, bounds);
          expect(pair).toEqual({ idSha256: e.id === null ? null : sha256Hex(e.id) });
        }
      });
    }
  }

  it("a label, key or metadata value outside printable ASCII is left to the general way", () => {
    for (const input of [
      '{"id":"é-id","source":null,"metadata":{},"text":"text"}',
      '{"id":null,"source":"drive\\tx","metadata":{},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"ключ":"v"},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"k":"naïve"},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"__proto__":"x"},"text":"text"}',
    ]) {
      const { manifest, exported, geometry, bounds } = pairOf([JSON.parse(input)], 3, false);
      const e = exported.records[0];
      expect(e).toBeDefined();
      expect(cleanPair(bytesOf(manifest.records[0]), bytesOf(e), 0, geometry, bounds)).toBeNull();
      expect(wholeProblems(manifest, exported, 0, manifest.records[0], e)).toEqual([]);
    }
  });

  it("a pair under another index, or with the structural layer recorded otherwise, is not read", () => {
    const { manifest, exported, geometry, bounds } = pairOf(INPUTS.slice(0, 1), 3, false);
    const [m, e] = [bytesOf(manifest.records[0]), bytesOf(exported.records[0])];
    expect(cleanPair(m, e, 0, geometry, bounds)).not.toBeNull();
    expect(cleanPair(m, e, 1, geometry, bounds)).toBeNull();
    expect(cleanPair(m, e, 0, geometry, { ...bounds, structuralFilter: false })).toBeNull();
    expect(cleanPair(m, e, 0, geometry, { ...bounds, maxSegments: 0 })).toBeNull();
  });

  it("a pair accepted after any one-byte change of either short record is canonical and has no problem verified whole", () => {
    const inputs = [INPUTS[1], { id: "d", source: null, metadata: {}, text: "Zürich 東京 😀 twelve words" }].map((input) => structuredClone(input));
    for (const [version, small] of [
      [3, true],
      [2, false],
    ] as const) {
      const { accepted, refused } = sweepOneByteChanges(inputs as typeof INPUTS, version, small);
      // Changes that keep a pair clean (a latency's digit, a token count) are read here; the rest are refused.
      expect(accepted).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(accepted * 10);
    }
  });
});

describe("clean pairs edited field by field", () => {
  /** Field edits of a clean pair, each written canonically; `m`/`e` are the two records, edited in place. */
  const EDITS: Record<string, (m: Json, e: Json) => void> = {
    "negative total latency": (m) => {
      m.segments[0].verdict.total_latency = -0.5;
    },
    "negative layer latency": (m) => {
      m.segments[0].verdict.layers[0].latency = -0.5;
    },
    "one layer where the structural layer ran": (m) => {
      m.segments[0].verdict.layers.pop();
    },
    "a third layer": (m) => {
      m.segments[0].verdict.layers.push({ latency: 0.1 });
    },
    "a layer with a name": (m) => {
      m.segments[0].verdict.layers[0].name = "structural_filter";
    },
    "a verdict with a status": (m) => {
      m.segments[0].verdict.canary_status = "exercised";
    },
    "a summary that is a number": (m) => {
      m.segments[0].verdict.summary = 1;
    },
    "a fractional token count": (m) => {
      m.segments[0].prompt_eval_count = 1.5;
    },
    "a negative token count": (m) => {
      m.segments[0].prompt_eval_count = -1;
    },
    "a segment left out": (m) => {
      m.segments.pop();
    },
    "a segment repeated": (m) => {
      m.segments.push(structuredClone(m.segments.at(-1)));
    },
    "a segment with a state": (m) => {
      m.segments[0].state = "pass";
    },
    "a record with an index": (m) => {
      m.index = 0;
    },
    "a record with a detection": (m) => {
      m.detection = "none";
    },
    "chars_total one more": (m) => {
      m.chars_total += 1;
    },
    "length one less": (m) => {
      m.length -= 1;
    },
    "metadata keys reversed": (m) => {
      m.metadata_keys.reverse();
    },
    "metadata keys left out": (m) => {
      delete m.metadata_keys;
    },
    "a metadata key repeated in the manifest": (m) => {
      m.metadata_keys.push(m.metadata_keys.at(-1) ?? "k");
    },
    "the id left out of the manifest": (m) => {
      delete m.id;
    },
    "a source added to the manifest": (m) => {
      m.source = "wiki";
    },
    "the export's id null": (_m, e) => {
      e.id = null;
    },
    "a metadata value changed": (_m, e) => {
      e.metadata.author = "bob";
    },
    "a metadata entry added": (_m, e) => {
      e.metadata.zzz = "z";
    },
  };

  for (const [name, edit] of Object.entries(EDITS)) {
    it(`${name}: read here only when the general way finds nothing wrong`, () => {
      for (const small of [false, true]) {
        const { manifest, exported, geometry, bounds } = pairOf(INPUTS.slice(0, 2), 3, small);
        for (const original of exported.records) {
          const m = structuredClone(manifest.records[original.index]);
          const e = structuredClone(original);
          edit(m, e);
          const pair = cleanPair(canonicalBytes(m), canonicalBytes(e), e.index, geometry, bounds);
          if (pair !== null) expect(wholeProblems(manifest, exported, e.index, m, e)).toEqual([]);
        }
      }
    });
  }

  it("metadata keys out of order or repeated are refused even when every digest is recomputed over them", () => {
    const { manifest, exported, geometry, bounds } = pairOf([{ id: "d", source: null, metadata: { a: "1", b: "2" }, text: "text" }], 3, false);
    const [m, e] = [manifest.records[0], exported.records[0]];
    expect(cleanPair(bytesOf(m), bytesOf(e), 0, geometry, bounds)).not.toBeNull();
    for (const entries of [
      [
        ["b", "2"],
        ["a", "1"],
      ],
      [
        ["a", "1"],
        ["a", "2"],
      ],
    ]) {
      // Written by hand, as a forger would: the material, its digest and the segment digests all over these bytes.
      const map = `{${entries.map(([k, v]) => `"${k}":"${v}"`).join(",")}}`;
      const material = `{"id":"d","metadata":${map},"source":null,"text":"text"}`;
      const lines = ["id: d", ...entries.map(([k, v]) => `${k}: ${v}`)].join("\n");
      const forgedE = `{"id":"d","index":0,"material_sha256":"${sha256Hex(material)}","metadata":${map},"sha256":"${e.sha256}","source":null,"text":"text"}`;
      const forgedM = structuredClone(m);
      forgedM.material_sha256 = sha256Hex(material);
      forgedM.metadata_keys = entries.map(([k]) => k);
      forgedM.chars_total = lines.length + 4;
      forgedM.segments[0].sha256 = sha256Hex(lines);
      // The same forgery with the keys in order and each once is read: only the order is refused.
      const sorted = [...entries].sort(([a], [b]) => (a as string).localeCompare(b as string));
      const unique = new Set(entries.map(([k]) => k)).size === entries.length;
      expect(cleanPair(canonicalBytes(forgedM), Buffer.from(forgedE), 0, geometry, bounds)).toBeNull();
      if (unique) expect(sorted).not.toEqual(entries);
    }
  });
});

describe("clean pairs in a verified pair of files", () => {
  const temp = tempDirPerTest("lc-clean-pair-");
  it("every clean admission of a compact manifest is read from its bytes, on one thread or two shares, and none when read exactly or from a v1 manifest", async () => {
    const dir = temp.dir;
    const inputs = [
      ...INPUTS,
      { id: "é-id", source: null, metadata: {}, text: "left to the general way" },
      { id: "x", source: null, metadata: {}, text: "a FLAG here" },
    ];
    for (const version of [1, 2, 3] as const) {
      const run = synthRun(inputs, { manifestVersion: version });
      const files = { manifest: join(dir, `m${version}.json`), export: join(dir, `e${version}.json`) };
      await writeFile(files.manifest, run.manifest.bytes);
      await writeFile(files.export, (run.exported as { bytes: Uint8Array }).bytes);
      const clean = version === 1 ? 0 : INPUTS.length;
      const one = await verifyFilesWithMode(files, "canonical", null);
      const shared = await verifyFilesWithMode(files, "canonical", { url: null, block: 1 });
      const exact = await verifyFilesWithMode(files, "exact");
      for (const reading of [one, shared, exact]) expect(reading.result.problems).toEqual([]);
      expect([one.cleanPairs, shared.cleanPairs, exact.cleanPairs]).toEqual([clean, clean, 0]);
    }
  });
});
