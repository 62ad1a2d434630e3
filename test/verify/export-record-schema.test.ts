// Why verify does not run the export record schema over a fast-read record that met every pair
// check (verify-stream.ts, StreamedExport.record): those checks already give the schema's every
// field, so only a non-empty text is left to ask. Held here for genuine records and for edits of
// every field's type and value.
import { describe, expect, it } from "vitest";
import { ExportRecordSchema } from "../../src/documents/schemas.js";
import { planGeometry } from "../../src/verify/_values.js";
import { checkExportRecord } from "../../src/verify/pair-checks.js";
import { ProblemList } from "../../src/verify/problems.js";
import { synthRun } from "../support/run-data.js";
import type { Json } from "./clean-pair-sweep.js";

const EDITS: Record<string, (e: Json) => void> = {
  "index a string": (e) => {
    e.index = String(e.index);
  },
  "index negative": (e) => {
    e.index = -1;
  },
  "index fractional": (e) => {
    e.index += 0.5;
  },
  "id a number": (e) => {
    e.id = 5;
  },
  "source an object": (e) => {
    e.source = {};
  },
  "sha256 in capitals": (e) => {
    e.sha256 = e.sha256.toUpperCase();
  },
  "material_sha256 null": (e) => {
    e.material_sha256 = null;
  },
  "metadata an array": (e) => {
    e.metadata = [];
  },
  "a metadata value a number": (e) => {
    e.metadata = { ...e.metadata, k: 1 };
  },
  "text empty": (e) => {
    e.text = "";
  },
  "text a number": (e) => {
    e.text = 7;
  },
  "an extra field": (e) => {
    e.extra = true;
  },
  "a field left out": (e) => {
    delete e.source;
  },
};

describe("an export record that meets every pair check", () => {
  const run = synthRun(
    [
      { id: "doc-1", source: null, metadata: {}, text: "plain words" },
      { id: null, source: "wiki", metadata: { author: "ann", ключ: "значение" }, text: "Zürich 東京 😀" },
    ],
    { manifestVersion: 1 },
  );
  const manifest: Json = JSON.parse(Buffer.from(run.manifest.bytes).toString("utf8"));
  const exported: Json = JSON.parse(Buffer.from((run.exported as { bytes: Uint8Array }).bytes).toString("utf8"));
  const geometry = planGeometry(manifest);

  // As the verifier asks: an index that is not a whole number makes the record malformed, and the
  // manifest record is the one at that position, if any.
  const meetsChecks = (item: Json): boolean => {
    if (!Number.isSafeInteger(item.index)) return false;
    const problems = new ProblemList();
    checkExportRecord(item, item.index, item.index >= 0 ? manifest.records[item.index] : undefined, geometry, problems);
    return problems.items.length === 0;
  };

  it("meets the export record schema, genuine", () => {
    for (const item of exported.records) {
      expect(meetsChecks(item)).toBe(true);
      expect(ExportRecordSchema.safeParse(item).success).toBe(true);
    }
  });

  for (const [name, edit] of Object.entries(EDITS)) {
    it(`meets the export record schema when its text is not empty (${name})`, () => {
      for (const original of exported.records) {
        const item = structuredClone(original);
        edit(item);
        if (!meetsChecks(item)) continue;
        expect(ExportRecordSchema.safeParse(item).success).toBe(typeof item.text === "string" && item.text.length > 0);
      }
    });
  }
});
