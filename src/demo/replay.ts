// `demo --replay`: re-runs this build's analyzer over the exact response bytes of a capture;
// REPLAY VERIFIED only when every case reproduces its recorded risk, block flag and signals AND
// the pair shows the contrast. No model is called, nothing leaves the process, and without a
// capture (none is packaged) the answer is REPLAY UNAVAILABLE, never a made-up result.
import { readFile, stat } from "node:fs/promises";
import { DEFAULT_CANARY_SYSTEM_PROMPT_SHA256 } from "../documents/system-prompt.js";
import { displayText } from "../core/display-text.js";
import { errorClassName } from "../core/errors.js";
import { analyzeReply, defaultResponseAnalyzer, type DemoCase, type ResponseAnalyzer } from "./case-analysis.js";
import { parseCapture, type Capture } from "./capture.js";
import { CONTRAST_CASES, MAX_CAPTURE_BYTES } from "./contrast.js";
import type { DemoOutcome } from "./outcome.js";

/** Options of `runReplay`. */
export interface ReplayOptions {
  /** Capture file to replay; none means "no capture is packaged". */
  readonly capturePath?: string;
  readonly analyzer?: ResponseAnalyzer;
  /** Receives the class name of an unexpected failure (never its message). */
  readonly onInternalError?: (where: "load" | "analysis", errorClass: string) => void;
}

const NO_CAPTURE = "no replay capture is packaged with this build; pass --capture PATH (record one with demo --live --record PATH)";

const BASE_FIELDS = { run_canary_status: "not_exercised", egress: "none" } as const;

/** The flag and the file, as every detail about the capture starts, so a mistyped path is seen at once. */
const namedCapture = (path: string): string => `--capture ${displayText(path)}`;

async function readCaptureBytes(path: string): Promise<Uint8Array | { kind: "unavailable"; detail: string }> {
  const named = namedCapture(path);
  try {
    const info = await stat(path);
    if (!info.isFile()) return { kind: "unavailable", detail: `capture file cannot be read (not a file): ${named}` };
    // Read no more than one byte past the cap, so an oversized file is refused without loading it.
    if (info.size > MAX_CAPTURE_BYTES) return new Uint8Array(MAX_CAPTURE_BYTES + 1);
    return await readFile(path);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { kind: "unavailable", detail: code === "ENOENT" ? `capture file not found: ${named}` : `capture file cannot be read: ${named}` };
  }
}

function failure(status: DemoOutcome["status"], error: string, cases: DemoCase[] = [], fields: DemoOutcome["fields"] = BASE_FIELDS): DemoOutcome {
  return { runKind: "REPLAY", status, cases, error, fields };
}

function successFields(capture: Capture): Record<string, unknown> {
  return {
    ...BASE_FIELDS,
    capture_canary_status: "exercised",
    backend: capture.capture.backend,
    model: capture.capture.model,
    model_digest: capture.capture.model_digest,
    fixture_payload_sha256: capture.payload_sha256,
    capture_source_sha: capture.capture.source_sha,
    capture_timestamp_utc: capture.capture.timestamp_utc,
    capture_runtime_version: capture.capture.runtime_version,
    capture_system_prompt_sha256: capture.capture.system_prompt_sha256,
    system_prompt_sha256: DEFAULT_CANARY_SYSTEM_PROMPT_SHA256,
    system_prompt_matches_capture: capture.capture.system_prompt_sha256 === DEFAULT_CANARY_SYSTEM_PROMPT_SHA256,
  };
}

/** Replays a capture through the analyzer, without any network call. */
export async function runReplay(options: ReplayOptions = {}): Promise<DemoOutcome> {
  if (options.capturePath === undefined) return failure("REPLAY UNAVAILABLE", NO_CAPTURE);
  let capture: Capture;
  try {
    const bytes = await readCaptureBytes(options.capturePath);
    if (!(bytes instanceof Uint8Array)) return failure("REPLAY UNAVAILABLE", bytes.detail);
    const loaded = parseCapture(bytes);
    if (loaded.kind === "integrity") return failure("REPLAY INTEGRITY FAILURE", `${namedCapture(options.capturePath)} is not a demo capture: ${loaded.detail}`);
    capture = loaded.capture;
  } catch (error) {
    options.onInternalError?.("load", errorClassName(error));
    return failure("REPLAY LOAD FAILURE", `${namedCapture(options.capturePath)} could not be loaded (an internal error)`);
  }

  const analyzer = options.analyzer ?? defaultResponseAnalyzer();
  const cases: DemoCase[] = [];
  for (const recorded of capture.cases) {
    const analysed = analyzeReply(analyzer, { id: recorded.id, input: recorded.input, response: recorded.response, canary_status: "recorded_capture" });
    if ("errorClass" in analysed) {
      options.onInternalError?.("analysis", analysed.errorClass);
      return failure("REPLAY ANALYSIS FAILURE", "recorded response analysis failed", cases);
    }
    cases.push(analysed);
    const { risk, block, signals } = recorded.expected;
    if (analysed.risk !== risk || (analysed.verdict === "BLOCK") !== block || JSON.stringify(analysed.signals) !== JSON.stringify(signals)) {
      return failure("REPLAY EXPECTATION FAILURE", `analyzer result changed for case ${recorded.id}`, cases, successFields(capture));
    }
  }
  if (!CONTRAST_CASES.every((fixed, i) => (cases[i]?.verdict === "BLOCK") === fixed.expectBlock)) {
    return failure("REPLAY EXPECTATION FAILURE", "capture does not record the clean/attack contrast", cases, successFields(capture));
  }
  return { runKind: "REPLAY", status: "REPLAY VERIFIED", cases, error: null, fields: successFields(capture) };
}
