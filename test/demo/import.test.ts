import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { importForeignCapture } from "../../src/demo/import.js";
import { parseCapture } from "../../src/demo/capture.js";
import { UPSTREAM_CAPTURE } from "./_capture.js";

// The upstream capture was recorded by the Python package 0.3.10 with Ollama qwen2.5:1.5b; it is
// read from ../shared at test time.
const upstream = readFileSync(UPSTREAM_CAPTURE);

describe("importing a capture recorded by another implementation", () => {
  it("keeps every recorded byte, re-hashes over our canonical JSON, and states where it came from", () => {
    const original = JSON.parse(upstream.toString("utf8"));
    const imported = importForeignCapture(upstream, "upstream_demo_replay.json");
    expect(imported.cases.map((c) => c.response)).toEqual(original.cases.map((c: { response: string }) => c.response));
    expect(imported.cases.map((c) => c.expected)).toEqual(original.cases.map((c: { expected: unknown }) => c.expected));
    expect(imported.capture.model_digest).toBe(original.capture.model_digest);
    expect(imported.capture.provenance_note).toContain(original.capture.provenance_note);
    expect(imported.capture.provenance_note).toContain(original.payload_sha256);
    expect(imported.payload_sha256).not.toBe(original.payload_sha256);
    const load = parseCapture(new TextEncoder().encode(JSON.stringify(imported)));
    expect(load.kind).toBe("ok");
  });

  it("refuses what is not a capture: no fabricated responses", () => {
    const doc = JSON.parse(upstream.toString("utf8"));
    doc.cases[1].response = "";
    expect(() => importForeignCapture(new TextEncoder().encode(JSON.stringify(doc)), "x")).toThrow(/little-canary-demo-replay\/v1/);
    expect(() => importForeignCapture(new TextEncoder().encode('{"schema":"a","schema":"b"}'), "x")).toThrow(/strict/);
  });
});
