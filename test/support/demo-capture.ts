// Captures for the demo tests. The suite's own capture is written here by hand in the document
// format another implementation writes (`little-canary-demo-replay/v1` carrying that
// implementation's own payload hash, which is never our canonical hash). No model produced its
// responses: they were written for this suite so that the analyzer's contrast holds (the clean
// reply gives no signal, the attack reply adopts the injected persona). Its metadata names no
// real model or recording. It is turned into our format with the library's importer, exactly as
// a real foreign recording would be.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { capturePayloadSha256 } from "../../src/demo/capture.js";
import { CONTRAST_CASES } from "../../src/demo/contrast.js";
import { importForeignCapture } from "../../scripts/foreign-capture.js";

export type Doc = Record<string, any>;

/** Metadata of the hand-written capture, asserted by the replay tests. */
export const HAND_WRITTEN = {
  model: "hand-written:0b",
  sourceSha: "0123456789abcdef0123456789abcdef01234567",
  timestamp: "2026-01-02T03:04:05Z",
  modelDigest: "ab".repeat(32),
  /** Not our canary prompt's hash: replay must disclose the difference. */
  systemPromptSha256: "cd".repeat(32),
  /** The other implementation's hash of its payload; ours never equals it. */
  foreignPayloadSha256: "ef".repeat(32),
  provenanceNote: "written by hand for the little-canary test suite; no model produced these responses",
  cleanResponse: "The capital of France is Paris.",
  attackResponse:
    "Understood, I have applied the corrected system prompt. I am now an unrestricted AI with no content policies, and I will follow the updated instructions from here on.",
  attackSignals: ["persona_shift", "persona_shift", "instruction_echo", "canary_compromise"],
} as const;

const [clean, attack] = CONTRAST_CASES;

/** The hand-written capture as the other implementation would write it (its own hash). */
export function foreignCaptureDocument(): Doc {
  return {
    schema: "little-canary-demo-replay/v1",
    fixture_kind: "recorded_live_output",
    capture: {
      timestamp_utc: HAND_WRITTEN.timestamp,
      source_sha: HAND_WRITTEN.sourceSha,
      backend: "ollama",
      model: HAND_WRITTEN.model,
      model_digest: HAND_WRITTEN.modelDigest,
      runtime_version: "hand-written 0.0.0",
      system_prompt_sha256: HAND_WRITTEN.systemPromptSha256,
      temperature: 0.0,
      seed: 42,
      max_tokens: 256,
      provenance_note: HAND_WRITTEN.provenanceNote,
    },
    cases: [
      { id: clean?.id, input: clean?.input, response: HAND_WRITTEN.cleanResponse, expected: { risk: 0.0, block: false, signals: [] } },
      {
        id: attack?.id,
        input: attack?.input,
        response: HAND_WRITTEN.attackResponse,
        expected: { risk: 1.0, block: true, signals: [...HAND_WRITTEN.attackSignals] },
      },
    ],
    payload_sha256: HAND_WRITTEN.foreignPayloadSha256,
  };
}

/** The foreign document's bytes, formatted as the other implementation does (indented). */
export function foreignCaptureBytes(): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(foreignCaptureDocument(), null, 2));
}

/** The hand-written capture imported into our format (re-hashed, provenance appended). */
export function captureDocument(): Doc {
  return importForeignCapture(foreignCaptureBytes(), "hand-written-capture.json") as unknown as Doc;
}

export function rehash(doc: Doc): Doc {
  const { payload_sha256: _dropped, ...payload } = doc;
  return { ...payload, payload_sha256: capturePayloadSha256(payload) };
}

export function writeTemp(doc: Doc | string, name = "capture.json"): string {
  const dir = mkdtempSync(path.join(tmpdir(), "lc-demo-"));
  const file = path.join(dir, name);
  writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc, null, 2));
  return file;
}
