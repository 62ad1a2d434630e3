// The one verifier gives the same problems whichever source feeds it: the files streamed in
// lockstep (verifyFiles) or the same bytes held in memory (verifyExport / verifyManifestOnly), on
// random genuine pairs and on tampered ones (verify-stream-properties.ts), read in 61-, 509- and
// 4096-byte chunks here and in 5- and 7-byte chunks in verify-stream.heavy.test.ts and verify-stream-tampered.heavy.test.ts; one small pair is
// read a byte at a time here too. The per-record value budget (manifests of two million values) is
// in verify-stream.heavy.test.ts.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hash.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { verifyExport } from "../../src/verify/verify-export.js";
import { synthRun, type SynthInput } from "../support/run-data.js";
import { agree, canon, enc, makeRun, tempDir, verifyStreamProperties, type Json } from "./verify-stream-properties.js";

describe("verifyFiles streaming the files agrees with the verifier fed the documents from memory", () => {
  verifyStreamProperties([61, 509, 4096]);

  it("only pairs not laid out as ingest writes them fall back to the whole documents", async () => {
    const dir = await tempDir();
    const run = makeRun(
      [
        { id: "a", source: null, metadata: {}, text: "one" },
        { id: "b", source: null, metadata: {}, text: "two" },
      ],
      false,
    );
    const m = structuredClone(run.manifest.document) as Json;
    const e = structuredClone(run.exported!.document) as Json;
    expect(await agree(dir, run.manifest.bytes, run.exported!.bytes, 5)).toBe("streamed");
    // Members that sort after `records` may come before it; one that sorts before may not.
    const { records, run: r, ...rest } = m;
    expect(await agree(dir, enc(JSON.stringify({ run: r, ...rest, records })), run.exported!.bytes, 5)).toBe("streamed");
    expect(await agree(dir, enc(JSON.stringify({ records, run: r, ...rest })), run.exported!.bytes, 5)).toBe("whole");
    e.records.reverse();
    expect(await agree(dir, run.manifest.bytes, canon(e), 5)).toBe("whole");
  });

  it("records the schema passes but that have no v1 form (a changed segment geometry) give the same problems streamed, whole and alone", async () => {
    const dir = await tempDir();
    const inputs: SynthInput[] = [
      { id: "a", source: null, metadata: { k: "v" }, text: "one two three four" },
      { id: "b", source: null, metadata: {}, text: "five six seven eight nine" },
    ];
    for (const manifestVersion of [2, 3] as const) {
      const run = synthRun(inputs, { policy: resolvePolicy({ segment_chars: 10, segment_overlap: 2, max_segments: 20 }), manifestVersion });
      const m = structuredClone(run.manifest.document) as Json;
      expect(m.schema).toBe(`little-canary-ingest-manifest/v${manifestVersion}`);
      // Fewer code points per segment: the texts would need more segments than the records state.
      m.policy.segment_chars = 5;
      const e = structuredClone(run.exported!.document) as Json;
      e.manifest_sha256 = sha256Hex(canon(m));
      expect(await agree(dir, canon(m), canon(e), 509)).toBe("streamed");
      const problems = verifyExport(canon(e), canon(m)).map((p) => p.code);
      expect(problems).toContain("manifest_invalid");
      e.records.reverse();
      expect(await agree(dir, canon(m), canon(e), 509)).toBe("whole");
      expect(await agree(dir, canon(m), null, 509)).toBe("streamed");
    }
  });
});
