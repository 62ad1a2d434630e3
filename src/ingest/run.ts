// `ingestRecords`: an ingest run over records in memory (from the reader, or inputs such as the
// RAG adapters' documents), returning the manifest and export in memory; nothing is written. A
// thin adapter over the one record runner (the same admission and second pass, spooled in
// memory), so the same input gives the same bytes for any concurrency. One deliberate exception:
// the circuit breaker opens after consecutive failures in completion order, so which records were
// unsent depends on timing; such a run is held (exit 2).
import { admitInMemoryInputs } from "../jsonl/admit.js";
import type { RawRecord } from "../jsonl/record.js";
import type { CanonicalDocument } from "../documents/manifest-build.js";
import type { IngestExport, IngestManifest } from "../documents/schemas.js";
import { DEFAULT_MAX_CANARY_FAILURES, type BreakerTrip } from "../pipeline/circuit-breaker.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { concurrencyOption, isPlainObject, refuseUnknownOptions } from "../core/guards.js";
import { ArraySpool, type FramedDocument } from "../publish/framed-document.js";
import { runContextGate, type CheckingPipeline, type GateResult } from "./gate.js";
import { readerLimitsForPolicy, resolvePolicy, type IngestPolicy, type PolicyOverrides } from "../documents/policy.js";
import { admitRecords } from "./admit-pass.js";
import { MemoryIdIndex } from "./id-index.js";
import type { DuplicateId, IngestRunSummary } from "./run-summary.js";
import { streamIngestRun } from "./stream-run.js";
import type { Allowlist } from "../documents/allowlist.js";
import { manifestVersionOf, type ManifestDocument, type ManifestVersion } from "../documents/manifest-v2.js";

/** One in-memory input of `ingestRecords`: a string, or an object whose fields are checked like a JSONL record's. */
export type IngestInput =
  | string
  | {
      readonly text: unknown;
      readonly id?: unknown;
      readonly source?: unknown;
      readonly metadata?: unknown;
    };

/** Options of `ingestRecords`. */
export interface IngestOptions {
  /** strict/v1 with these overrides (a whole policy document is accepted too). */
  readonly policy?: PolicyOverrides | IngestPolicy;
  /** Let a pipeline this library did not build run; recorded as canary_context_verified:false. */
  readonly unverifiedPipeline?: boolean;
  readonly concurrency?: number;
  /** Produce the export document too (sets run.export_requested, covered by the hash). */
  readonly exportRequested?: boolean;
  /** SHA-256 of the raw input, when the caller read it from bytes (the CLI does). */
  readonly inputSha256?: string | null;
  readonly signal?: AbortSignal;
  /** Records done so far (a record is done when all its checks are). */
  readonly onProgress?: (done: number, total: number) => void;
  /** The clock for the manifest's timestamps (defaults to the system clock). */
  readonly clock?: () => Date;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5; 0 never); later segments are `error`. */
  readonly maxCanaryFailures?: number;
  /** Hold a record whose id repeats an earlier record's id (as `malformed`), instead of only counting it. */
  readonly uniqueIds?: boolean;
  /** An allowlist (parseAllowlist): held records whose every hold is a detection and whose hash is listed are admitted. */
  readonly allowlist?: Allowlist;
  /** The manifest format: 3 (compact, the default), 2 (compact, without the rules version) or 1 (`little-canary-ingest-manifest/v1`); docs/compatibility.md. */
  readonly manifestVersion?: ManifestVersion;
}

/** The result of an ingest run in memory: the manifest and, when asked, the export, not yet written. */
export interface IngestRun {
  /** The manifest of the version asked for (`manifestFacts` gives the v1 records of any). */
  readonly manifest: CanonicalDocument<ManifestDocument>;
  readonly export: CanonicalDocument<IngestExport> | null;
  readonly gate: GateResult;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
  /** Valid records whose id repeats an earlier one's, with its index: what `uniqueIds` holds (`summary.duplicateIds` counts all). */
  readonly duplicateIds: readonly DuplicateId[];
  /** What the run reports besides its documents (the same summary a run from a file gives). */
  readonly summary: IngestRunSummary;
}

/** In-memory records through the reader's record rules, with the run-level count/size limits. */
export function admitIngestInputs(inputs: readonly IngestInput[], policy: IngestPolicy): RawRecord[] {
  const limits = readerLimitsForPolicy(policy);
  return admitInMemoryInputs(inputs, {
    kind: "ingest",
    limits,
    refuse: (code, index) =>
      new LittleCanaryError(
        "input_refused",
        code === "too_many_items"
          ? `ingest exceeds the limit of ${limits.maxItems} records`
          : code === "not_a_record"
            ? `record ${index}: must be a string or object`
            : `ingest exceeds the limit of ${limits.maxTotalBytes} total bytes`,
      ),
  });
}

/** A framed document's bytes held as a CanonicalDocument (the spools were in memory). */
async function inMemory<D>(framed: FramedDocument): Promise<CanonicalDocument<D>> {
  const chunks: Buffer[] = [];
  await framed.writeTo(async (chunk) => {
    chunks.push(Buffer.from(chunk));
  });
  const json = Buffer.concat(chunks).toString("utf8");
  // writeTo checked these bytes against the digest the frame computed.
  return { document: JSON.parse(json) as D, json, bytes: new TextEncoder().encode(json), sha256: framed.sha256 };
}

/** Every option ingestRecords takes; `satisfies` keeps the list equal to the interface. */
const INGEST_OPTION_KEYS = Object.keys({
  policy: true,
  unverifiedPipeline: true,
  concurrency: true,
  exportRequested: true,
  inputSha256: true,
  signal: true,
  onProgress: true,
  clock: true,
  maxCanaryFailures: true,
  uniqueIds: true,
  allowlist: true,
  manifestVersion: true,
} satisfies Record<keyof IngestOptions, true>);

/** `{ inputs: [...] }`, or an array of the reader's records (objects with a line number): never bare strings. */
function isInMemoryInput(input: unknown): input is readonly RawRecord[] | { readonly inputs: readonly IngestInput[] } {
  if (Array.isArray(input)) return input.every((record) => isPlainObject(record) && typeof record["line"] === "number" && isPlainObject(record["keys"]));
  return isPlainObject(input) && Array.isArray(input["inputs"]);
}

/** Runs a whole ingest over records already read (or in-memory inputs); returns the documents with their canonical bytes. */
export async function ingestRecords(
  pipeline: CheckingPipeline,
  input: readonly RawRecord[] | { readonly inputs: readonly IngestInput[] },
  options: IngestOptions = {},
): Promise<IngestRun> {
  refuseUnknownOptions("ingestRecords", options, INGEST_OPTION_KEYS);
  const concurrency = concurrencyOption("ingestRecords", options.concurrency);
  if (!isInMemoryInput(input)) {
    // The commonest slip: the inputs first (screenBatch takes its items first, ingestRecords its pipeline).
    const swapped = isInMemoryInput(pipeline as unknown) ? " (the first argument is the inputs: pass the pipeline first)" : "";
    throw new UsageError(
      `ingestRecords(pipeline, { inputs: [...] }, options?) takes the pipeline first, then { inputs: [...] }, each input a string or { text, id?, source?, metadata? }${swapped}`,
    );
  }
  const { name: _name, ...overrides } = { ...(options.policy ?? {}) } as Record<string, unknown>;
  if (_name !== undefined && _name !== "strict/v1") throw new LittleCanaryError("usage", "only the strict/v1 policy is supported");
  const policy = resolvePolicy(overrides as PolicyOverrides);
  const clock = options.clock ?? (() => new Date());
  const gate = await runContextGate(pipeline, policy, { unverifiedPipeline: options.unverifiedPipeline === true });
  const records = "inputs" in input ? admitIngestInputs(input.inputs, policy) : input;
  const ids = new MemoryIdIndex();
  const prepared = await admitRecords(records, {
    policy,
    ids,
    uniqueIds: options.uniqueIds === true,
    inputSha256: options.inputSha256 ?? null,
    manifestVersion: manifestVersionOf(options.manifestVersion),
  });
  const run = await streamIngestRun(pipeline, prepared, {
    policy,
    gate,
    concurrency,
    maxCanaryFailures: options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES,
    manifestSpool: async () => new ArraySpool(),
    exportSpool: options.exportRequested === true ? async () => new ArraySpool() : null,
    ids,
    clock,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.allowlist ? { allowlist: options.allowlist } : {}),
  });
  try {
    return {
      summary: run.summary,
      manifest: await inMemory<IngestManifest>(run.manifest),
      export: run.export === null ? null : await inMemory<IngestExport>(run.export),
      gate,
      circuitOpen: run.circuitOpen,
      duplicateIds: prepared.duplicateIds,
    };
  } finally {
    await run.remove();
    await prepared.prepared.remove();
    ids.close();
  }
}
