import { describe, expect, it } from "vitest";
import { parseCapture } from "../../src/demo/capture.js";
import { importForeignCapture } from "../../scripts/foreign-capture.js";
import { foreignCaptureBytes, HAND_WRITTEN } from "../support/demo-capture.js";

function expectFaithfulImport(bytes: Uint8Array, label: string): void {
  const original = JSON.parse(new TextDecoder().decode(bytes));
  const imported = importForeignCapture(bytes, label);
  expect(imported.cases.map((c) => c.response)).toEqual(original.cases.map((c: { response: string }) => c.response));
  expect(imported.cases.map((c) => c.expected)).toEqual(original.cases.map((c: { expected: unknown }) => c.expected));
  expect(imported.capture.model_digest).toBe(original.capture.model_digest);
  expect(imported.capture.provenance_note).toContain(original.capture.provenance_note);
  expect(imported.capture.provenance_note).toContain(original.payload_sha256);
  expect(imported.capture.provenance_note).toContain(label);
  expect(imported.payload_sha256).not.toBe(original.payload_sha256);
  const load = parseCapture(new TextEncoder().encode(JSON.stringify(imported)));
  expect(load.kind).toBe("ok");
}

describe("importing a capture written by another implementation", () => {
  it("keeps every recorded byte, re-hashes over our canonical JSON, and states where it came from", () => {
    expectFaithfulImport(foreignCaptureBytes(), "hand-written-capture.json");
    expect(HAND_WRITTEN.provenanceNote).toContain("no model produced");
  });

  it("refuses what is not a capture: no fabricated responses", () => {
    const doc = JSON.parse(new TextDecoder().decode(foreignCaptureBytes()));
    doc.cases[1].response = "";
    expect(() => importForeignCapture(new TextEncoder().encode(JSON.stringify(doc)), "x")).toThrow(/little-canary-demo-replay\/v1/);
    expect(() => importForeignCapture(new TextEncoder().encode('{"schema":"a","schema":"b"}'), "x")).toThrow(/strict/);
  });
});
