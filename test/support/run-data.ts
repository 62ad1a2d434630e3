// Synthetic ingest runs for tests: a tiny stand-in for the run loop that plans each record,
// "checks" each segment with a scripted verdict (keyword in the slice → verdict), and builds
// the manifest and export with the real building blocks. No pipeline, no network.
import type { Allowlist } from "../../src/documents/allowlist.js";
import { classifySegmentVerdict } from "../../src/documents/classify.js";
import { STRICT_V1, type IngestPolicy } from "../../src/documents/policy.js";
import { stopsChecking } from "../../src/documents/record-state.js";
import { buildExport, buildManifest, type AdmittedSnapshot, type CanonicalDocument } from "./whole-documents.js";
import { NOT_CHECKED, checkedRecordEntry, malformedRecordEntry, overBudgetRecordEntry, type SegmentResult } from "../../src/documents/manifest-records.js";
import type { IngestExport, IngestManifest, ManifestRecord, PipelineInfoV3 } from "../../src/documents/schemas.js";
import { STRUCTURAL_RULES_VERSION } from "../../src/structural/rules.js";
import type { ManifestDocument, ManifestVersion } from "../../src/documents/manifest-v2.js";
import type { VerdictJson } from "../../src/documents/verdict-schema.js";
import { planSegments, type SegmentableRecord } from "../../src/documents/segment-plan.js";
import { canaryBlockVerdict, degradedVerdict, flagVerdict, passVerdict, structuralBlockVerdict } from "./verdicts.js";

/** The pipeline record of a synthesized run (v1 and v2 manifests leave out the rules version). */
export const PIPELINE_INFO: PipelineInfoV3 = {
  mode: "full",
  provider: "ollama",
  canary_model: "qwen2.5:1.5b",
  canary_model_digest: "sha256:65ec0654",
  analysis_method: "regex",
  structural_filter: true,
  structural_rules_version: STRUCTURAL_RULES_VERSION,
  canary_enabled: true,
  canary_num_ctx: 15044,
  canary_context_length: 32768,
  canary_context_verified: true,
};

export type SynthInput =
  | SegmentableRecord
  | { readonly malformed: { readonly text: unknown; readonly id?: unknown; readonly source?: unknown; readonly detail: string } };

interface SynthOptions {
  readonly policy?: IngestPolicy;
  readonly verified?: boolean;
  readonly exportRequested?: boolean;
  readonly allowlist?: Allowlist;
}

/** Scripted canary: the slice's keywords decide its verdict; "RAISE" is a failed check. */
function scriptedVerdict(slice: string): VerdictJson | "raise" {
  if (slice.includes("RAISE")) return "raise";
  if (slice.includes("STRUCT")) return structuralBlockVerdict();
  if (slice.includes("BLOCK")) return canaryBlockVerdict();
  if (slice.includes("FLAG")) return flagVerdict();
  if (slice.includes("DEGRADE")) return degradedVerdict();
  if (slice.includes("NORISK")) return passVerdict({ canary_risk_score: null });
  if (slice.includes("NOCANARY")) {
    return passVerdict({ canary_status: "disabled", analysis_method: "none", analysis_status: "not_applicable", canary_risk_score: null });
  }
  return passVerdict();
}

export interface SynthRun<M extends ManifestDocument = IngestManifest> {
  readonly manifest: CanonicalDocument<M>;
  readonly exported: CanonicalDocument<IngestExport> | null;
  readonly admitted: AdmittedSnapshot[];
  readonly records: ManifestRecord[];
  readonly checks: string[];
}

export function synthRun(inputs: readonly SynthInput[], options?: SynthOptions & { manifestVersion?: 1 }): SynthRun;
export function synthRun(inputs: readonly SynthInput[], options: SynthOptions & { manifestVersion: ManifestVersion }): SynthRun<ManifestDocument>;
export function synthRun(inputs: readonly SynthInput[], options: SynthOptions & { manifestVersion?: ManifestVersion } = {}): SynthRun<ManifestDocument> {
  const policy = options.policy ?? STRICT_V1;
  const exportRequested = options.exportRequested ?? true;
  const records: ManifestRecord[] = [];
  const admitted: AdmittedSnapshot[] = [];
  const checks: string[] = [];
  inputs.forEach((input, index) => {
    if ("malformed" in input) {
      const m = input.malformed;
      records.push(malformedRecordEntry({ index, text: m.text, id: m.id ?? null, source: m.source ?? null, detail: m.detail }));
      return;
    }
    const plan = planSegments(input, policy);
    if (plan.over_budget) {
      records.push(overBudgetRecordEntry({ index, record: input, plan }));
      return;
    }
    const results: SegmentResult[] = [];
    let stopped = false;
    for (const segment of plan.segments) {
      if (stopped) {
        results.push(NOT_CHECKED);
        continue;
      }
      checks.push(segment.text);
      const verdict = scriptedVerdict(segment.text);
      const classified = verdict === "raise" ? { error: "TypeError" } : classifySegmentVerdict(verdict);
      const result: SegmentResult =
        verdict === "raise" || "error" in classified
          ? {
              state: "error",
              exercised: false,
              verdict: null,
              error: "error" in classified ? classified.error : "TypeError",
              latency: null,
              prompt_eval_count: null,
            }
          : { state: classified.state, exercised: classified.exercised, verdict, error: null, latency: verdict.total_latency, prompt_eval_count: 812 };
      results.push(result);
      if (policy.stop_after_hold && stopsChecking(result.state)) stopped = true;
    }
    const entry = checkedRecordEntry({ index, record: input, plan, results, ...(options.allowlist ? { allowlist: options.allowlist } : {}) });
    records.push(entry);
    if (entry.admission === "admitted") admitted.push({ index, record: input });
  });
  const manifest = buildManifest(
    {
      little_canary_version: "0.1.0",
      started_at: "2026-09-29T12:00:00.000Z",
      finished_at: "2026-09-29T12:00:03.362Z",
      pipeline: { ...PIPELINE_INFO, canary_context_verified: options.verified ?? true },
      policy,
      checks_performed: checks.length,
      input_sha256: "52e18ffb40c0a56d606ee07d8623cfbcb05315f61286234d1b95f38f84f14158",
      export_requested: exportRequested,
      ...(options.allowlist ? { allowlist: { sha256: options.allowlist.sha256, entries: options.allowlist.entries.length } } : {}),
      records,
    },
    options.manifestVersion ?? 1,
  );
  const exported = exportRequested ? buildExport(manifest, admitted) : null;
  return { manifest, exported, admitted, records, checks };
}

/** A JSON round trip: what a consumer gets back after parsing the written bytes. */
export function reparse<T>(doc: T): T {
  return JSON.parse(JSON.stringify(doc)) as T;
}
