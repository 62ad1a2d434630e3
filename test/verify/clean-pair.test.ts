// The clean-pair reading (src/verify/clean-pair.ts) against the general way: it reads every clean
// admission whose strings need no escape, leaves the rest to the general way, and a pair it accepts after any
// one-byte change of either record is canonical and has no problem verified whole (here over two
// short records; every record of clean-pair-sweep.ts's inputs in clean-pair.heavy.test.ts).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { synthRun, type SynthInput } from "../support/run-data.js";
import { tempDirPerTest } from "../support/temp-dir.js";
import { sha256Hex } from "../../src/core/hash.js";
import { cleanPair, plainDecimalSign } from "../../src/verify/clean-pair.js";
import { bytesOf, canonicalBytes, INPUTS, pairOf, sweepOneByteChanges, wholeProblems, type Json } from "./clean-pair-sweep.js";

describe("clean pairs read from their bytes", () => {
  for (const version of [2, 3] as const) {
    for (const small of [false, true]) {
      it(`every admitted pair whose strings need no escape is read, its id digest given (v${version}, ${small ? "several windows" : "one window"} per material)`, () => {
        const { manifest, exported, geometry, bounds } = pairOf(INPUTS, version, small);
        expect(exported.records).toHaveLength(INPUTS.length);
        for (const e of exported.records) {
          const pair = cleanPair(bytesOf(manifest.records[e.index]), bytesOf(e), e.index, geometry, bounds);
          expect(pair).toEqual({ idSha256: e.id === null ? null : sha256Hex(e.id) });
        }
      });
    }
  }

  it("a string written with an escape, a key beyond the Basic Multilingual Plane or a __proto__ key is left to the general way", () => {
    for (const input of [
      '{"id":"tab\\there","source":null,"metadata":{},"text":"text"}',
      '{"id":null,"source":"a \\"quote\\"","metadata":{},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"k":"back\\\\slash"},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"😀k":"v"},"text":"text"}',
      '{"id":null,"source":null,"metadata":{"__proto__":"x"},"text":"text"}',
    ]) {
      const { manifest, exported, geometry, bounds } = pairOf([JSON.parse(input)], 3, false);
      const e = exported.records[0];
      expect(e).toBeDefined();
      expect(cleanPair(bytesOf(manifest.records[0]), bytesOf(e), 0, geometry, bounds)).toBeNull();
      expect(wholeProblems(manifest, exported, 0, manifest.records[0], e)).toEqual([]);
    }
  });

  it("integer-like metadata keys, which JSON.parse puts first, are read in canonical order and agree with the general way", () => {
    const { manifest, exported, geometry, bounds } = pairOf(
      [JSON.parse('{"id":"d","source":null,"metadata":{"10":"a","2":"b","k":"c"},"text":"text"}')],
      3,
      true,
    );
    const e = exported.records[0];
    expect(bytesOf(e).toString("utf8")).not.toContain('"metadata":{"10":"a","2":"b"');
    const [mBytes, eBytes] = [canonicalBytes(manifest.records[0]), canonicalBytes(e)];
    expect(eBytes.toString("utf8")).toContain('"metadata":{"10":"a","2":"b","k":"c"}');
    expect(cleanPair(mBytes, eBytes, 0, geometry, bounds)).not.toBeNull();
    expect(wholeProblems(manifest, exported, 0, manifest.records[0], e)).toEqual([]);
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

  /**
   * A pair written by hand, as a forger would (a v3 manifest under the default policy: one metadata
   * window, one text window), with every digest and count computed over these bytes.
   */
  function forge(id: Buffer, entries: ReadonlyArray<readonly [Buffer, Buffer]>, text = "text"): [Buffer, Buffer] {
    const b = (part: string | Buffer): Buffer => (typeof part === "string" ? Buffer.from(part, "utf8") : part);
    const cat = (...parts: Array<string | Buffer>): Buffer => Buffer.concat(parts.map(b));
    const joined = (parts: Buffer[], by: string): Buffer => Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [b(by), part])));
    const q = (bytes: Buffer): Buffer => cat('"', bytes, '"');
    const map = cat(
      "{",
      joined(
        entries.map(([k, v]) => cat(q(k), ":", q(v))),
        ",",
      ),
      "}",
    );
    const materialSha = sha256Hex(cat('{"id":', q(id), ',"metadata":', map, ',"source":null,"text":"', text, '"}'));
    const lines = joined([cat("id: ", id), ...entries.map(([k, v]) => cat(k, ": ", v))], "\n");
    const linesLength = lines.length - lines.filter((byte) => (byte & 0xc0) === 0x80).length;
    const textSha = sha256Hex(text);
    const verdict = '"verdict":{"layers":[{"latency":0.1},{"latency":0.2}],"total_latency":0.3}}';
    const exported = cat(
      '{"id":',
      q(id),
      ',"index":0,"material_sha256":"',
      materialSha,
      '","metadata":',
      map,
      ',"sha256":"',
      textSha,
      '","source":null,"text":"',
      text,
      '"}',
    );
    const keys = cat(
      "[",
      joined(
        entries.map(([k]) => q(k)),
        ",",
      ),
      "]",
    );
    const manifest = cat(
      `{"chars_total":${linesLength + text.length},"id":`,
      q(id),
      `,"length":${text.length},"material_sha256":"${materialSha}","metadata_keys":`,
      keys,
      `,"segments":[{"prompt_eval_count":5,"sha256":"${sha256Hex(lines)}",${verdict},{"prompt_eval_count":5,${verdict}],"sha256":"${textSha}"}`,
    );
    return [manifest, exported];
  }

  const DEFAULTS = pairOf([INPUTS[0] as SynthInput], 3, false);
  const ascii = (text: string): Buffer => Buffer.from(text, "latin1");

  it("a pair forged with every digest recomputed is read when it is what ingest writes, and verifies clean whole", () => {
    const [m, e] = forge(ascii("d"), [
      [ascii("a"), ascii("1")],
      [ascii("b"), Buffer.from("zwei 😀", "utf8")],
    ]);
    expect(cleanPair(m, e, 0, DEFAULTS.geometry, DEFAULTS.bounds)).not.toBeNull();
    expect(wholeProblems(DEFAULTS.manifest, DEFAULTS.exported, 0, JSON.parse(m.toString("utf8")), JSON.parse(e.toString("utf8")))).toEqual([]);
  });

  const FORGERIES: Record<string, () => [Buffer, Buffer]> = {
    "metadata keys out of order": () =>
      forge(ascii("d"), [
        [ascii("b"), ascii("2")],
        [ascii("a"), ascii("1")],
      ]),
    "a metadata key repeated": () =>
      forge(ascii("d"), [
        [ascii("a"), ascii("1")],
        [ascii("a"), ascii("2")],
      ]),
    "an id with a byte that is never UTF-8": () => forge(Buffer.from([0x64, 0xff]), []),
    "an id with an encoded surrogate": () => forge(Buffer.from([0x64, 0xed, 0xa0, 0x80]), []),
    "a metadata value with an overlong encoding": () => forge(ascii("d"), [[ascii("a"), Buffer.from([0xc0, 0xaf])]]),
    "a metadata key beyond the Basic Multilingual Plane": () => forge(ascii("d"), [[Buffer.from("😀", "utf8"), ascii("1")]]),
  };
  for (const [name, forged] of Object.entries(FORGERIES)) {
    it(`a pair forged with every digest recomputed is left to the general way: ${name}`, () => {
      const [m, e] = forged();
      expect(cleanPair(m, e, 0, DEFAULTS.geometry, DEFAULTS.bounds)).toBeNull();
    });
  }
});

describe("clean pairs in a verified pair of files", () => {
  const temp = tempDirPerTest("lc-clean-pair-");
  it("every clean admission of a compact manifest is read from its bytes, on one thread or two shares, and none when read exactly or from a v1 manifest", async () => {
    const dir = temp.dir;
    const inputs = [
      ...INPUTS,
      { id: "tab\tid", source: null, metadata: {}, text: "left to the general way" },
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

describe("numbers judged from their digits", () => {
  it("a decimal judged canonical from its digits is what JavaScript writes for its value, sign included", () => {
    const judged = (token: string): void => {
      const sign = plainDecimalSign(Buffer.from(token, "latin1"), 0, token.length);
      if (sign === null) return;
      expect(String(Number(token))).toBe(token);
      expect(sign).toBe(Math.sign(Number(token)));
    };
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const written = String(value);
        judged(written);
        // Near misses of a canonical form: a trailing zero, a leading zero, one digit more or less.
        for (const token of [`${written}0`, `0${written}`, written.slice(0, -1), `${written}1`, `-${written}`]) judged(token);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,20})?$/), (token) => judged(token)),
      { numRuns: 5000 },
    );
  });

  it("latencies as ingest writes them are judged from their digits, and forms JavaScript writes otherwise are not", () => {
    const sign = (token: string) => plainDecimalSign(Buffer.from(token, "latin1"), 0, token.length);
    expect(["0.0616", "1.8419", "0", "12", "-0.5", "0.000001", "123456789012345"].map(sign)).toEqual([1, 1, 0, 1, -1, 1, 1]);
    for (const token of ["-0", "0.0000001", "0.10", "01", "1.", ".5", "1e5", "1234567890123456", "0.1234567890123456"]) expect(sign(token)).toBeNull();
  });
});
