// `demo` replay. The capture is the suite's hand-written one (test/support/demo-capture.ts: written
// in another implementation's format, imported with the library's importer); no model produced its
// responses. A real recording is replayed by `npm run bench:upstream-replay -- --capture <file>`.
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { DEFAULT_CANARY_SYSTEM_PROMPT_SHA256 } from "../../src/documents/system-prompt.js";
import { parseCapture } from "../../src/demo/capture.js";
import { runReplay } from "../../src/demo/replay.js";
import { runLocal } from "../support/run-local.js";
import { captureDocument, foreignCaptureDocument, HAND_WRITTEN, rehash, writeTemp, type Doc } from "../support/demo-capture.js";

/** Why a capture whose bytes changed after hashing is refused. */
const MISMATCH = "its payload_sha256 does not match its content (it was changed after it was hashed, or hashed by another implementation)";

const PREAMBLE = "RUN_KIND   REPLAY\nMODEL_CALL no — recorded output\nCANARY     NOT EXERCISED THIS RUN\nEGRESS     none\n";

async function demo(argv: string[], env: Record<string, string> = {}) {
  const run = runLocal(["demo", ...argv], { env });
  const code = await run.done;
  return { code, stdout: run.stdout.text, stderr: run.stderr.text };
}

describe("replay of an imported capture", () => {
  it("prints REPLAY VERIFIED with clean PASS and c1-05 BLOCK, and exits 0", async () => {
    const file = writeTemp(captureDocument());
    const { code, stdout } = await demo(["--replay", "--capture", file]);
    expect(code).toBe(0);
    expect(stdout.startsWith(PREAMBLE)).toBe(true);
    expect(stdout).toContain(`MODEL      ${HAND_WRITTEN.model}\n`);
    expect(stdout).toContain(`CAPTURE    ${HAND_WRITTEN.sourceSha} at ${HAND_WRITTEN.timestamp}\n`);
    expect(stdout).toMatch(/\nFIXTURE_SHA [0-9a-f]{64}\n/);
    expect(stdout).toContain('CASE       clean\nRESPONSE   "The capital of France is Paris."\nRISK       0.0\nSIGNALS    none\n');
    expect(stdout).toContain("COVERAGE   canary=recorded_capture; analysis=regex/exercised\nVERDICT    PASS\n");
    expect(stdout).toContain(`RISK       1.0\nSIGNALS    ${HAND_WRITTEN.attackSignals.join(", ")}\n`);
    expect(stdout).toContain("VERDICT    BLOCK\n");
    expect(stdout).toContain("REPLAY     VERIFIED\nSCOPE      recorded analyzer contrast; not current model safety\n");
    // The capture names a canary prompt other than ours; that is disclosed, not hidden.
    expect(stdout).toContain(`capture recorded with a different canary prompt, ${HAND_WRITTEN.systemPromptSha256}`);
  });

  it("reports the verified replay as little-canary-demo/v1 JSON with no model call and no egress", async () => {
    const file = writeTemp(captureDocument());
    const { code, stdout } = await demo(["--capture", file, "--json"]);
    expect(code).toBe(0);
    expect(stdout.endsWith("\n")).toBe(true);
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const doc = JSON.parse(stdout) as Doc;
    expect(doc).toMatchObject({
      schema: "little-canary-demo/v1",
      run_kind: "REPLAY",
      evidence_type: "REPLAY",
      command_status: "REPLAY VERIFIED",
      model_call: false,
      canary_exercised_this_run: false,
      run_canary_status: "not_exercised",
      capture_canary_status: "exercised",
      egress: "none",
      degraded: false,
      analysis_method: "regex",
      analysis_status: "exercised",
      exit_code: 0,
      model_digest: HAND_WRITTEN.modelDigest,
      system_prompt_sha256: DEFAULT_CANARY_SYSTEM_PROMPT_SHA256,
      system_prompt_matches_capture: false,
    });
    expect(doc["cases"].map((c: Doc) => [c.id, c.verdict, c.canary_status])).toEqual([
      ["clean", "PASS", "recorded_capture"],
      ["c1-05", "BLOCK", "recorded_capture"],
    ]);
    expect(Object.keys(doc)).toEqual([...Object.keys(doc)].sort());
  });

  it("refuses the foreign file itself: its own payload hash is not our canonical hash", async () => {
    const file = writeTemp(foreignCaptureDocument());
    const { code, stdout } = await demo(["--capture", file]);
    expect(code).toBe(2);
    expect(stdout).toContain(`REPLAY     INTEGRITY FAILURE\nDETAIL     --capture ${file} is not a demo capture: ${MISMATCH}\n`);
  });
});

describe("replay failures", () => {
  it("without a capture prints REPLAY UNAVAILABLE after the preamble and exits 2, ignoring a bad LITTLE_CANARY_TIMEOUT", async () => {
    const { code, stdout } = await demo([], { LITTLE_CANARY_TIMEOUT: "soon" });
    expect(code).toBe(2);
    expect(stdout.startsWith(`${PREAMBLE}REPLAY     UNAVAILABLE\nDETAIL     no replay capture is packaged`)).toBe(true);
    const json = JSON.parse((await demo(["--json"])).stdout) as Doc;
    expect(json).toMatchObject({
      command_status: "REPLAY UNAVAILABLE",
      degraded: true,
      analysis_method: "none",
      analysis_status: "not_applicable",
      exit_code: 2,
      model_call: false,
    });
  });

  it("reports a missing capture file as unavailable, naming the flag and the path", async () => {
    const { code, stdout } = await demo(["--capture", "/nonexistent/capture.json"]);
    expect(code).toBe(2);
    expect(stdout).toContain("REPLAY     UNAVAILABLE\nDETAIL     capture file not found: --capture /nonexistent/capture.json\n");
  });

  it("reports a directory given as the capture as unreadable, naming it", async () => {
    const { code, stdout } = await demo(["--capture", tmpdir()]);
    expect(code).toBe(2);
    expect(stdout).toContain(`DETAIL     capture file cannot be read (not a file): --capture ${tmpdir()}\n`);
  });

  it("a file that is not a capture is named by --capture and its path, and none of its content is shown", async () => {
    const notes = writeTemp("# SECRET-NOTES\nnot a capture\n", "notes.md");
    const run = await demo(["--replay", "--capture", notes]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      `REPLAY     INTEGRITY FAILURE\nDETAIL     --capture ${notes} is not a demo capture: it is not strict UTF-8 JSON (a capture has no byte order mark, duplicate key or non-finite number)\n`,
    );
    // A JSON object of another kind: the reason names the field, never the value it holds.
    const other = rehash({ ...captureDocument(), schema: "SECRET-SCHEMA/v9" });
    const json = await demo(["--capture", writeTemp(other, "other.json"), "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ command_status: "REPLAY INTEGRITY FAILURE", exit_code: 2 });
    expect(json.stdout).toContain("other.json is not a demo capture: its schema is not little-canary-demo-replay/v1");
    expect(run.stdout + run.stderr + json.stdout + json.stderr).not.toContain("SECRET");
  });

  it("refuses a capture whose payload_sha256 is wrong (response altered under the old hash) with exit 2", async () => {
    const doc = captureDocument();
    doc["cases"][1].response = "The capital of France is Paris.";
    const file = writeTemp(doc);
    const { code, stdout } = await demo(["--capture", file]);
    expect(code).toBe(2);
    expect(stdout).toContain(`REPLAY     INTEGRITY FAILURE\nDETAIL     --capture ${file} is not a demo capture: ${MISMATCH}\n`);
    expect(stdout).not.toContain("VERIFIED");
  });

  it("a capture whose model name or source holds terminal escapes is shown escaped, never raw", async () => {
    const doc = captureDocument();
    doc["capture"].model = "qwen\u001b[31mRED\u001b]0;pwned\u0007\u202eevil";
    doc["capture"].source_sha = "abc\u001b[2Jdef";
    const { stdout } = await demo(["--capture", writeTemp(rehash(doc))]);
    expect(stdout).toContain('MODEL      "qwen\\u001b[31mRED\\u001b]0;pwned\\u0007\\u202eevil"\n');
    expect(stdout).toContain('CAPTURE    "abc\\u001b[2Jdef" at ');
    expect(stdout).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it("prints an expectation failure and exits 1 when altered response bytes are re-hashed", async () => {
    const doc = captureDocument();
    doc["cases"][1].response = "I can't help with changing my instructions, but I'm happy to answer questions.";
    const { code, stdout } = await demo(["--capture", writeTemp(rehash(doc))]);
    expect(code).toBe(1);
    expect(stdout).toContain("REPLAY     EXPECTATION FAILURE\nDETAIL     analyzer result changed for case c1-05\n");
  });

  it("prints an expectation failure when expected.block is flipped and the hash recomputed", async () => {
    const doc = captureDocument();
    doc["cases"][0].expected.block = true;
    const { code, stdout } = await demo(["--capture", writeTemp(rehash(doc)), "--json"]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({
      command_status: "REPLAY EXPECTATION FAILURE",
      analysis_method: "regex",
      analysis_status: "failed",
      exit_code: 1,
    });
  });

  it("lets the verdict follow the response when responses are swapped, and never verifies it", async () => {
    const doc = captureDocument();
    const [clean, attack] = doc["cases"];
    [clean.response, attack.response] = [attack.response, clean.response];
    [clean.expected, attack.expected] = [attack.expected, clean.expected];
    const outcome = await runReplay({ capturePath: writeTemp(rehash(doc)) });
    expect(outcome.cases.map((c) => c.verdict)).toEqual(["BLOCK", "PASS"]);
    expect(outcome.status).toBe("REPLAY EXPECTATION FAILURE");
    expect(outcome.error).toBe("capture does not record the clean/attack contrast");
  });

  it("reports an analyzer that throws as ANALYSIS FAILURE (exit 2) without its message", async () => {
    const messages: string[] = [];
    const outcome = await runReplay({
      capturePath: writeTemp(captureDocument()),
      analyzer: {
        analyzeResponse: () => {
          throw new SyntaxError("secret detail");
        },
      },
      onInternalError: (where, name) => messages.push(`${where}:${name}`),
    });
    expect(outcome.status).toBe("REPLAY ANALYSIS FAILURE");
    expect(outcome.error).toBe("recorded response analysis failed");
    expect(messages).toEqual(["analysis:SyntaxError"]);
    expect(JSON.stringify(outcome)).not.toContain("secret detail");
  });

  it("validates a capture in the documented order with fixed reasons that name fields, never the file's values", () => {
    const STRICT_JSON = "it is not strict UTF-8 JSON (a capture has no byte order mark, duplicate key or non-finite number)";
    const bytes = (doc: Doc | string): Uint8Array => Buffer.from(typeof doc === "string" ? doc : JSON.stringify(doc));
    const detail = (doc: Doc | string): string => {
      const loaded = parseCapture(bytes(doc));
      return loaded.kind === "ok" ? "ok" : loaded.detail;
    };
    expect(detail("{not json")).toBe(STRICT_JSON);
    expect(detail("[]")).toBe("it is not a JSON object");
    expect(detail({ ...captureDocument(), payload_sha256: "abc" })).toBe("its payload_sha256 is missing or not 64 hex digits");
    // Non-finite numbers and duplicate keys are refused by the strict parser, before hashing.
    expect(detail('{"a":1e999,"payload_sha256":"' + "0".repeat(64) + '"}')).toBe(STRICT_JSON);
    expect(detail('{"a":1,"a":2,"payload_sha256":"' + "0".repeat(64) + '"}')).toBe(STRICT_JSON);
    expect(parseCapture(new Uint8Array(1_048_577)).kind).toBe("integrity");
    const mutate = (change: (doc: Doc) => void): string => {
      const doc = captureDocument();
      change(doc);
      return detail(rehash(doc));
    };
    expect(mutate(() => undefined)).toBe("ok");
    expect(mutate((d) => (d["schema"] = "other/v1"))).toBe("its schema is not little-canary-demo-replay/v1");
    expect(mutate((d) => (d["fixture_kind"] = "synthetic"))).toBe("its fixture_kind is not recorded_live_output");
    expect(mutate((d) => (d["capture"] = []))).toBe("its capture metadata is not an object");
    expect(mutate((d) => (d["capture"].model = " "))).toBe("its capture metadata is incomplete (a required field is missing or blank)");
    expect(mutate((d) => (d["capture"].backend = "openai"))).toBe("its backend is not ollama");
    expect(mutate((d) => (d["capture"].temperature = 0.7))).toBe("its temperature is not 0");
    expect(mutate((d) => (d["capture"].seed = 7))).toBe("its seed is not 42");
    expect(mutate((d) => (d["capture"].max_tokens = 512))).toBe("its max_tokens is not 256");
    expect(mutate((d) => (d["capture"].provenance_note = 5))).toBe("its provenance_note is not a string");
    expect(mutate((d) => (d["capture"].system_prompt_sha256 = "ABC"))).toBe("its system_prompt_sha256 is not 64 lowercase hex digits");
    expect(mutate((d) => (d["cases"][0] = "SECRET"))).toBe("a case is not an object");
    expect(mutate((d) => d["cases"].pop())).toBe("it does not hold exactly the 2 cases of the contrast pair");
    expect(mutate((d) => (d["cases"][0].input = "What is the capital of Spain?"))).toBe(
      "its cases are not this build's contrast pair (clean, then c1-05, with their inputs)",
    );
    expect(mutate((d) => (d["cases"][0].response = "  "))).toBe("a case's response is missing or blank");
    expect(mutate((d) => (d["cases"][0].expected.risk = true))).toBe("a case's expected risk is not a number");
    expect(mutate((d) => (d["cases"][0].expected.block = "no"))).toBe("a case's expected block is not true or false");
    expect(mutate((d) => (d["cases"][0].expected.signals = [""]))).toBe("a case's expected signals are not a list of non-empty strings");
  });

  it("refuses --replay together with --live as a usage error", async () => {
    const { code } = await demo(["--replay", "--live"]);
    expect(code).toBe(2);
  });
});
