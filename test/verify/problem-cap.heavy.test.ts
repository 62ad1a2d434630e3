// A pair damaged throughout finds several problems per record: verify keeps the first
// MAX_KEPT_RECORD_PROBLEMS of each document's records, in record order, and counts the rest in one
// problem; it lists the first MAX_LISTED_MISSING admitted records missing from the export and
// counts the rest. The same whichever path read the pair (streamed on one thread or in two
// shares, or held whole). Each test reads pairs of over 10,000 records several ways: 18 s on a busy
// 2-core machine, so each has 120 s.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { MAX_KEPT_RECORD_PROBLEMS, MAX_LISTED_MISSING } from "../../src/verify/problems.js";
import { verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { agree, canon, enc, makeRun, tempDir, type Json } from "./verify-stream-properties.js";

describe("problems kept of a pair damaged throughout", () => {
  it("an export missing more admitted records than are listed: the first indices listed, the rest counted, the same on every path", async () => {
    const dir = await tempDir();
    const run = makeRun([{ id: "a", source: null, metadata: {}, text: "one" }], false);
    const m = structuredClone(run.manifest.document) as Json;
    const [record] = m.records;
    const extra = 7;
    m.records = Array.from({ length: MAX_LISTED_MISSING + extra }, (_, index) => ({ ...record, index }));
    const e = structuredClone(run.exported!.document) as Json;
    e.records = [];
    // Streamed, in two shares dealt one record at a time, and held whole all give the same list.
    expect(await agree(dir, canon(m), canon(e), 65536)).toBe("streamed");
    const { result } = await verifyFilesWithMode({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json") });
    const listed = Array.from({ length: MAX_LISTED_MISSING }, (_, i) => i).join(", ");
    expect(result.problems.find((p) => p.code === "admitted_missing")?.message).toBe(`admitted records missing from export: [${listed}] and ${extra} more`);
  }, 120_000);

  it("an export of many malformed records: the first ones kept in order, the rest counted, the same on every path", async () => {
    const dir = await tempDir();
    const run = makeRun([{ id: "a", source: null, metadata: {}, text: "one" }], false);
    const e = structuredClone(run.exported!.document) as Json;
    const extra = 25;
    e.records = Array.from({ length: MAX_KEPT_RECORD_PROBLEMS + extra }, () => ({}));
    // Streamed, in two shares dealt one record at a time, and held whole all give the same list.
    expect(await agree(dir, run.manifest.bytes, canon(e), 4096)).toBe("streamed");
    const { result } = await verifyFilesWithMode({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json") }, "canonical", {
      url: null,
      block: 1,
    });
    const codes = result.problems.map((p) => p.code);
    const malformed = result.problems.filter((p) => p.code === "export_record_malformed");
    expect(malformed).toHaveLength(MAX_KEPT_RECORD_PROBLEMS);
    expect(malformed[0]?.message).toBe("export record at position 0: malformed");
    expect(malformed.at(-1)?.message).toBe(`export record at position ${MAX_KEPT_RECORD_PROBLEMS - 1}: malformed`);
    expect(result.problems[codes.indexOf("problems_not_kept")]?.message).toBe(
      `${extra} more problems in the export's records not kept (verify keeps the first ${MAX_KEPT_RECORD_PROBLEMS} of each document)`,
    );
    // The problems of the pair as a whole still follow.
    expect(codes.slice(MAX_KEPT_RECORD_PROBLEMS)).toEqual(["problems_not_kept", "admitted_missing", "admitted_count"]);
  }, 120_000);

  it("a manifest of 30,000 malformed records: the problems past the first are counted, alone and with an export", async () => {
    const dir = await tempDir();
    const run = makeRun([{ id: "a", source: null, metadata: {}, text: "one" }], false);
    const m = structuredClone(run.manifest.document) as Json;
    m.records = Array.from({ length: 30_000 }, () => 1);
    const bytes = enc(JSON.stringify(m));
    for (const exported of [null, run.exported!.bytes]) {
      // agree compares the streamed, two-share and held readings of the files it writes.
      await agree(dir, bytes, exported, 65536);
      const paths = { manifest: join(dir, "manifest.json"), export: exported === null ? null : join(dir, "export.json") };
      const { result } = await verifyFilesWithMode(paths);
      expect(result.readable).toBe(true);
      const notKept = result.problems.find((p) => p.code === "problems_not_kept");
      expect(notKept?.message).toBe(
        `${30_000 - MAX_KEPT_RECORD_PROBLEMS} more problems in the manifest's records not kept (verify keeps the first ${MAX_KEPT_RECORD_PROBLEMS} of each document)`,
      );
    }
  }, 120_000);
});
