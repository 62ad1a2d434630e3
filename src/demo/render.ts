// Presentation of a demo outcome (docs/demo.md): labelled human lines in an
// 11-character column, and the one-line `little-canary-demo/v1` JSON document (keys sorted,
// non-ASCII escaped). Pure functions; the command decides where each goes.
import stringify from "fast-json-stable-stringify";
import type { DemoCase } from "./case-analysis.js";
import { CONTRAST_CASES, DEMO_SCHEMA } from "./contrast.js";
import { statusRow, type DemoOutcome } from "./outcome.js";
import { asciiJson, displayText } from "../core/display-text.js";

export function label(name: string, value: string): string {
  return `${name.padEnd(10)} ${value}`;
}

/** Python-repr style numbers: 0 → 0.0, 1 → 1.0, null → None. */
function pyNumber(value: number | null): string {
  if (value === null) return "None";
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

const RESPONSE_SHOWN = 240;

/**
 * A value read from a capture file, as a terminal may show it: a capture is a file anyone may hand
 * over, so its model name or timestamp may hold escape sequences or a bidi override.
 */
const fromCapture = (value: unknown): string => displayText(String(value));

function caseLines(c: DemoCase): string[] {
  const points = [...c.response];
  const shown = asciiJson(points.slice(0, RESPONSE_SHOWN).join(""));
  const lines = [
    label("CASE", fromCapture(c.id)),
    label("RESPONSE", points.length > RESPONSE_SHOWN ? `${shown} … [truncated]` : shown),
    label("RISK", pyNumber(c.risk)),
    label("SIGNALS", c.signals.length > 0 ? c.signals.join(", ") : "none"),
    label("COVERAGE", `canary=${c.canary_status}; analysis=${c.analysis_method}/${c.analysis_status}`),
    label("VERDICT", c.verdict),
  ];
  if (c.error !== undefined) lines.push(label("DETAIL", fromCapture(c.error)));
  return lines;
}

const REPLAY_PREAMBLE: readonly string[] = [
  label("RUN_KIND", "REPLAY"),
  label("MODEL_CALL", "no — recorded output"),
  label("CANARY", "NOT EXERCISED THIS RUN"),
  label("EGRESS", "none"),
];

export function replayLines(outcome: DemoOutcome): string[] {
  const lines = [...REPLAY_PREAMBLE];
  const f = outcome.fields as Record<string, string | boolean | undefined>;
  if (f["backend"] !== undefined) {
    lines.push(
      label("BACKEND", fromCapture(f["backend"])),
      label("MODEL", fromCapture(f["model"])),
      label("MODEL_SHA", fromCapture(f["model_digest"])),
      label("CAPTURE", `${fromCapture(f["capture_source_sha"])} at ${fromCapture(f["capture_timestamp_utc"])}`),
      `FIXTURE_SHA ${fromCapture(f["fixture_payload_sha256"])}`,
      label(
        "PROMPT_SHA",
        f["system_prompt_matches_capture"]
          ? `${fromCapture(f["system_prompt_sha256"])} (capture recorded with this build's canary prompt)`
          : `${fromCapture(f["system_prompt_sha256"])} (capture recorded with a different canary prompt, ${fromCapture(f["capture_system_prompt_sha256"])})`,
      ),
    );
  }
  for (const c of outcome.cases) lines.push(...caseLines(c));
  const word = outcome.status.replace(/^REPLAY /, "");
  lines.push(label("REPLAY", word));
  if (outcome.error !== null) lines.push(label("DETAIL", fromCapture(outcome.error)));
  if (outcome.status === "REPLAY VERIFIED") lines.push(label("SCOPE", "recorded analyzer contrast; not current model safety"));
  return lines;
}

export function liveDisclosureLines(endpoint: string, model: string): string[] {
  return [
    label("RUN_KIND", "LIVE"),
    label("BACKEND", "ollama"),
    label("MODEL", displayText(model)),
    label("ENDPOINT", displayText(endpoint)),
    label("EGRESS", "loopback model inventory, then two raw synthetic inputs"),
    ...CONTRAST_CASES.map((c) => label("INPUT", `${c.id}: ${asciiJson(c.input)}`)),
  ];
}

export function liveDisclosureJson(endpoint: string, model: string): string {
  return asciiJson(
    {
      schema: DEMO_SCHEMA,
      event: "LIVE_PREFLIGHT",
      run_kind: "LIVE",
      backend: "ollama",
      model,
      endpoint,
      egress: "loopback model inventory plus two raw synthetic prompt calls",
      inputs: CONTRAST_CASES.map((c) => ({ id: c.id, text: c.input })),
    },
    stringify,
  );
}

export function liveResultLines(outcome: DemoOutcome): string[] {
  if (outcome.status === "DEGRADED / UNEXERCISED") return [label("LIVE", outcome.status), ...(outcome.error !== null ? [label("DETAIL", outcome.error)] : [])];
  return [...outcome.cases.flatMap(caseLines), label("LIVE", outcome.status === "LIVE CONTRAST VERIFIED" ? "CONTRAST VERIFIED" : outcome.status)];
}

/** `exitCode` is the process exit code of the run (outcome.ts demoExitCode), so the two agree. */
export function demoJson(outcome: DemoOutcome, modelCall: boolean, exitCode: 0 | 1 | 2 = statusRow(outcome).exitCode): string {
  const row = statusRow(outcome);
  const document: Record<string, unknown> = {
    schema: DEMO_SCHEMA,
    evidence_type: outcome.runKind,
    run_kind: outcome.runKind,
    model_call: modelCall,
    canary_exercised_this_run: outcome.runKind === "LIVE" && outcome.cases.some((c) => c.canary_status === "exercised"),
    cases: outcome.cases,
    command_status: outcome.status,
    degraded: row.degraded,
    analysis_method: row.analysisMethod,
    analysis_status: row.analysisStatus,
    exit_code: exitCode,
    ...outcome.fields,
  };
  if (outcome.error !== null) document["error"] = outcome.error;
  return asciiJson(document, stringify);
}
