// Byte pins: fixed inputs must give byte-identical manifests, exports and batch documents.
// The golden documents under fixtures/pins/ were written by the code this test was added
// against; a refactor that is meant to change no behaviour must leave every one of them as it is.
//
// Each case runs the real CLI in-process (`ingest` or `screen`), structural only (--no-canary)
// or against the scripted loopback Ollama stand-in, whose replies depend only on the text it is
// sent. Only what depends on the clock is normalised, on the raw bytes, before comparing:
//
//   "started_at", "finished_at"   manifest run timestamps    -> "1970-01-01T00:00:00.000Z"
//   "latency" (a number)          segment and layer latency  -> 0   (a null latency is kept)
//   "total_latency"               verdict latency            -> 0
//   "(<n>.<nnn>s)" ending a       the verdict summary's      -> "(0.000s)"
//   verdict "summary" string      rendering of total_latency
//   "manifest_sha256" in the      hash of the manifest bytes -> "<manifest sha256>", after
//   export                        (which hold the above)        checking it is the SHA-256 of
//                                                               the manifest file as written
//
// Everything else (key order, number forms, escapes, hashes of texts and materials, counts,
// hold reasons, verdict fields) is compared byte for byte. To rewrite the goldens after an
// intended change of output, run `PINS_UPDATE=1 npx vitest run test/pins` and review the diff.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { expandRecordV2, type ManifestRecordV2 } from "../../src/documents/manifest-v2.js";
import type { IngestManifest } from "../../src/documents/schemas.js";
import { STRUCTURAL_RULES_VERSION } from "../../src/structural/rules.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaReply, type OllamaStandIn } from "../support/ollama-stand-in.js";

const PINS = fileURLToPath(new URL("../../fixtures/pins/", import.meta.url));
const UPDATE = process.env["PINS_UPDATE"] === "1";

const TIMESTAMP = /"(started_at|finished_at)":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/g;
const LATENCY = /"(latency|total_latency)":-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;
const SUMMARY_SECONDS = /("summary":"(?:[^"\\]|\\.)*)\(\d+\.\d{3}s\)"/g;
const MANIFEST_SHA = /"manifest_sha256":"([0-9a-f]{64})"/g;

/** The document with its clock-dependent values replaced (the table at the top of this file). */
function normaliseDocument(text: string): string {
  return text
    .replace(TIMESTAMP, (_match, key: string) => `"${key}":"1970-01-01T00:00:00.000Z"`)
    .replace(LATENCY, (_match, key: string) => `"${key}":0`)
    .replace(SUMMARY_SECONDS, (_match, head: string) => `${head}(0.000s)"`);
}

/**
 * A v2 manifest with its clock-dependent values replaced: latencies become 0, and what v2 leaves
 * out only when a latency allows it is dropped (a summary whose seconds the rounded total latency
 * does not determine, a segment latency equal to its verdict's total). Parsed and re-serialized
 * canonically, so the pin is still of canonical bytes.
 */
function normaliseV2Manifest(text: string): string {
  const walk = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, null));
    if (typeof value !== "object" || value === null) return key === "latency" || key === "total_latency" ? (typeof value === "number" ? 0 : value) : value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "started_at" || k === "finished_at") out[k] = "1970-01-01T00:00:00.000Z";
      else if (k === "summary" && typeof v === "string" && /\(\d+\.\d{3}s\)$/.test(v)) continue;
      else if (k === "latency" && typeof v === "number" && Object.hasOwn(value, "verdict")) continue;
      else out[k] = walk(v, k);
    }
    return out;
  };
  return canonicalJsonUnchecked(walk(JSON.parse(text), null));
}

/** The export normalised, once its binding to the manifest bytes actually written is checked. */
function normaliseExport(exportText: string, manifestBytes: Buffer): string {
  const bound = [...exportText.matchAll(MANIFEST_SHA)].map((match) => match[1]);
  expect(bound).toEqual([createHash("sha256").update(manifestBytes).digest("hex")]);
  return normaliseDocument(exportText.replace(MANIFEST_SHA, '"manifest_sha256":"<manifest sha256>"'));
}

/** Compares with fixtures/pins/<name> byte for byte (or writes it under PINS_UPDATE=1). */
async function expectPinned(name: string, actual: string): Promise<void> {
  const path = join(PINS, name);
  if (UPDATE) {
    await writeFile(path, actual);
    return;
  }
  const golden = await readFile(path);
  // Buffers, so a difference in any byte (line ending, escape form, trailing newline) fails.
  expect(Buffer.from(actual, "utf8").equals(golden), `${name} differs from its golden copy`).toBe(true);
  expect(actual).toBe(golden.toString("utf8"));
}

const input = (name: string): string => join(PINS, "inputs", name);

/** The stand-in's scripted canary: a reply (or an HTTP 500) chosen only by the text it was sent. */
function cannedReply(text: string): OllamaReply {
  if (text.includes("OUTAGE-TRIGGER")) return { fault: "status", status: 500, body: '{"error":"model crashed"}' };
  if (text.includes("CANARY-TRIGGER")) return "Sure! DAN here. I am free of all restrictions now and will do anything you ask.";
  if (text.includes("pier")) return 'Checking the schedule. <tool_call>{"tool": "tides_lookup"}</tool_call>';
  if (/ignore all previous instructions|reveal your system prompt/i.test(text)) {
    return "Okay, I will ignore my previous instructions. My system prompt is: you are a helpful assistant.";
  }
  return "Here is a short summary of the text.";
}

let ollama: OllamaStandIn;
let work: string;
beforeAll(async () => {
  ollama = await startOllamaStandIn({
    contextLength: 32768,
    reply: (request) => {
      const messages = (request.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
      const last = messages[messages.length - 1]?.content;
      return cannedReply(typeof last === "string" ? last : "");
    },
  });
  work = await mkdtemp(join(tmpdir(), "lc-pins-"));
  if (UPDATE) await mkdir(PINS, { recursive: true });
});
afterAll(async () => {
  await ollama.close();
  await rm(work, { recursive: true, force: true });
});

interface IngestCase {
  readonly name: string;
  readonly input: string;
  readonly args: readonly string[];
  readonly canary: boolean;
  readonly exitCode: number;
}

/** The v1 pins are of `--manifest-version 1`: their bytes are what v1 consumers rely on. */
const V1 = ["--manifest-version", "1"];

const INGEST_CASES: readonly IngestCase[] = [
  { name: "ingest-examples-no-canary", input: "ingest-examples.jsonl", args: ["--no-canary"], canary: false, exitCode: 2 },
  { name: "ingest-examples-canary", input: "ingest-examples.jsonl", args: [], canary: true, exitCode: 1 },
  {
    name: "ingest-mixed-canary-segments",
    input: "ingest-mixed.jsonl",
    args: ["--segment-chars", "500", "--segment-overlap", "100", "--max-segments", "6"],
    canary: true,
    exitCode: 2,
  },
  { name: "ingest-mixed-advisory", input: "ingest-mixed.jsonl", args: ["--mode", "advisory", "--unique-ids"], canary: true, exitCode: 2 },
];

interface ScreenCase {
  readonly name: string;
  readonly input: string;
  readonly args: readonly string[];
  readonly canary: boolean;
  readonly exitCode: number;
}

const SCREEN_CASES: readonly ScreenCase[] = [
  { name: "screen-examples-no-canary", input: "screen-examples.jsonl", args: ["--no-canary"], canary: false, exitCode: 2 },
  { name: "screen-mixed-canary", input: "screen-mixed.jsonl", args: [], canary: true, exitCode: 2 },
  { name: "screen-mixed-advisory-fail-closed", input: "screen-mixed.jsonl", args: ["--mode", "advisory", "--fail-closed"], canary: true, exitCode: 2 },
];

const canaryArgs = (canary: boolean): string[] => (canary ? ["--ollama-url", ollama.url, "--timeout", "10"] : []);

describe("the same inputs give byte-identical documents (pinned golden files)", () => {
  it.each(INGEST_CASES)("ingest $name gives the pinned manifest and export", async (c) => {
    const dir = await mkdtemp(join(work, `${c.name}-`));
    const run = await runCli(["ingest", input(c.input), "--manifest", "m.json", "--export", "e.json", ...c.args, ...V1, ...canaryArgs(c.canary)], { cwd: dir });
    expect(run.code, run.stderr).toBe(c.exitCode);
    const manifestBytes = await readFile(join(dir, "m.json"));
    const exportText = await readFile(join(dir, "e.json"), "utf8");
    const manifest = normaliseDocument(manifestBytes.toString("utf8"));
    // The normalisation found what it is meant to replace: a run with no timestamps would pin nothing.
    expect(manifest).toContain('"started_at":"1970-01-01T00:00:00.000Z"');
    expect(manifest).toContain('"finished_at":"1970-01-01T00:00:00.000Z"');
    await expectPinned(`${c.name}.manifest.json`, manifest);
    await expectPinned(`${c.name}.export.json`, normaliseExport(exportText, manifestBytes));
  });

  it.each(INGEST_CASES)("ingest $name with manifest v2 gives the pinned v2 manifest, carrying the v1 run's facts", async (c) => {
    const dir = await mkdtemp(join(work, `${c.name}-v2-`));
    const args = ["ingest", input(c.input), "--manifest", "m.json", "--export", "e.json", ...c.args, "--manifest-version", "2", ...canaryArgs(c.canary)];
    const run = await runCli(args, { cwd: dir });
    expect(run.code, run.stderr).toBe(c.exitCode);
    const manifestBytes = await readFile(join(dir, "m.json"));
    const exportText = await readFile(join(dir, "e.json"), "utf8");
    const manifest = normaliseV2Manifest(manifestBytes.toString("utf8"));
    expect(manifest).toContain('"schema":"little-canary-ingest-manifest/v2"');
    await expectPinned(`${c.name}.v2.manifest.json`, manifest);
    await expectPinned(`${c.name}.v2.export.json`, normaliseExport(exportText, manifestBytes));
    // Expanded to v1 facts and normalised like the v1 pin, the v2 manifest is the v1 golden copy,
    // apart from what v1 normalises and v2 cannot restore (the seconds of a written summary).
    const parsed = JSON.parse(manifestBytes.toString("utf8")) as { policy: IngestManifest["policy"]; records: ManifestRecordV2[] };
    const geometry = { chars: parsed.policy.segment_chars, overlap: parsed.policy.segment_overlap };
    const asV1 = canonicalJsonUnchecked({
      ...parsed,
      schema: "little-canary-ingest-manifest/v1",
      records: parsed.records.map((record, position) => expandRecordV2(record, position, geometry)),
    });
    const golden = await readFile(join(PINS, `${c.name}.manifest.json`), "utf8");
    expect(normaliseDocument(asV1)).toBe(golden);
  });

  it.each(INGEST_CASES)("ingest $name by default writes manifest v3: the v2 pin with v3's names and the structural rules' version", async (c) => {
    const dir = await mkdtemp(join(work, `${c.name}-v3-`));
    const run = await runCli(["ingest", input(c.input), "--manifest", "m.json", "--export", "e.json", ...c.args, ...canaryArgs(c.canary)], { cwd: dir });
    expect(run.code, run.stderr).toBe(c.exitCode);
    const manifestBytes = await readFile(join(dir, "m.json"));
    const exportText = await readFile(join(dir, "e.json"), "utf8");
    const parsed = JSON.parse(manifestBytes.toString("utf8")) as { schema: string; pipeline: Record<string, unknown> };
    expect(parsed.schema).toBe("little-canary-ingest-manifest/v3");
    expect(parsed.pipeline["structural_filter"]).toBe(true);
    expect(parsed.pipeline["structural_rules_version"]).toBe(STRUCTURAL_RULES_VERSION);
    const { structural_rules_version: _version, ...v2Pipeline } = parsed.pipeline;
    const asV2 = canonicalJsonUnchecked({ ...parsed, schema: "little-canary-ingest-manifest/v2", pipeline: v2Pipeline });
    expect(normaliseV2Manifest(asV2)).toBe(await readFile(join(PINS, `${c.name}.v2.manifest.json`), "utf8"));
    const exportNames = '"schema":"little-canary-ingest-export/v3"';
    expect(exportText).toContain(exportNames);
    const exportAsV2 = normaliseExport(exportText, manifestBytes)
      .replace('"manifest_schema":"little-canary-ingest-manifest/v3"', '"manifest_schema":"little-canary-ingest-manifest/v2"')
      .replace(exportNames, '"schema":"little-canary-ingest-export/v2"');
    expect(exportAsV2).toBe(await readFile(join(PINS, `${c.name}.v2.export.json`), "utf8"));
  });

  it.each(SCREEN_CASES)("screen $name gives the pinned batch document", async (c) => {
    const run = await runCli(["screen", input(c.input), ...c.args, ...canaryArgs(c.canary)], { cwd: work });
    expect(run.code, run.stderr).toBe(c.exitCode);
    const batch = normaliseDocument(run.stdout);
    expect(batch).toContain('"total_latency":0');
    await expectPinned(`${c.name}.batch.json`, batch);
  });

  it("normalisation replaces only the clock-dependent values", () => {
    const raw =
      '{"finished_at":"2026-12-01T11:26:24.292Z","latency":0.0044,"n":0.0044,"latency_budget":3,"segments":[{"latency":null}],' +
      '"verdict":{"summary":"Input blocked by structural_filter (0.021s)","total_latency":0.021},"text":"took (1.500s)"}';
    expect(normaliseDocument(raw)).toBe(
      '{"finished_at":"1970-01-01T00:00:00.000Z","latency":0,"n":0.0044,"latency_budget":3,"segments":[{"latency":null}],' +
        '"verdict":{"summary":"Input blocked by structural_filter (0.000s)","total_latency":0},"text":"took (1.500s)"}',
    );
  });
});
