// `ingestFiles`: one crash-safe ingest run from a JSONL file (or stream) to a published pair;
// `ingestSteps` is the same run telling its caller's reporter between the steps (the `ingest` verb).
// Steps: 1. settings resolved and checked (run-plan.ts), the pipeline built or its options checked;
// 2. resources opened (run-resources.ts), locks taken, pre-flight repeated under them (only those answers are final);
// 3. with `overwrite`, the previous pair removed (a later failure leaves no pair, never an old one
// that looks current), directories checked; 4. the strict read (a shard: counted, then its lines);
// 5. the checks (an abort answers at once); 6. publication, the one step that writes, rolled back
// on failure, abort or lost lock before its commit (after it the pair stands:
// `interruptedAfterCommit`); 7. the locks released.
import { requiredCanaryContext } from "../canary/context.js";
import { pipelineIdentity } from "../cache/identity.js";
import type { VerdictCache } from "../cache/verdict-cache.js";
import { AfterPublicationError, LittleCanaryError } from "../core/errors.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { orAbort } from "../core/or-abort.js";
import type { ManifestRecord } from "../documents/schemas.js";
import { shardRange, type LineRange } from "../documents/shard.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import type { IngestPolicy } from "../documents/policy.js";
import { countInputLines, selectLineRange, type InputLineCount } from "../jsonl/line-range.js";
import { refusalInInput } from "../jsonl/read.js";
import { fromFile, fromNodeStream } from "../jsonl/sources.js";
import { publish, type PublishResult } from "../publish/publish.js";
import { lockTakenOverError } from "../publish/lock.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { circuitOpenedNow } from "../pipeline/canary-warning.js";
import type { BreakerTrip } from "../pipeline/circuit-breaker.js";
import type { CiReports } from "../report/ci-reports.js";
import { reportItemFromRecord } from "../report/report-item.js";
import { ArraySpool } from "../publish/framed-document.js";
import { displayText } from "../core/display-text.js";
import { admitPass, type AdmitPassResult } from "./admit-pass.js";
import { runContextGate, type CheckingPipeline, type GateResult } from "./gate.js";
import type { RecordIdIndex } from "./id-index.js";
import { recordEntryCache, type RecordEntryCache, type RecordEntrySettings } from "./record-cache.js";
import type { RecordPrefetch } from "./record-prefetch.js";
import { RunResources } from "./run-resources.js";
import {
  abortFirst,
  IngestRefusedError,
  resolveRunSettings,
  stopIfAborted,
  type IngestFilesOptions,
  type IngestRunPlan,
  type IngestRunReport,
} from "./run-plan.js";
import type { IngestOutcomeCode, IngestRunSummary } from "./run-summary.js";
import type { ManifestHead } from "../documents/manifest-v2.js";
import { segmentVerdictCache, type SegmentVerdictCache } from "./segment-cache.js";
import { streamIngestRun, type StreamedRun, type StreamRunOptions } from "./stream-run.js";

/** What `ingestFiles` gives back once the pair is published. */
export interface IngestFilesResult {
  /** The run's summary, context gate and breaker trip (the records are in the published manifest). */
  readonly run: IngestRunReport;
  /** The published manifest without its records. */
  readonly manifest: ManifestHead;
  /** Where the pair went and the SHA-256 of each file. */
  readonly published: PublishResult;
  /** 0 every record admitted, 1 held for detection only, 2 held for an operational reason. */
  readonly outcome: IngestOutcomeCode;
  /** The signal aborted once the publication had committed: the pair is complete and stands. */
  readonly interruptedAfterCommit: boolean;
}

/** The canary context window (num_ctx) a segment of this policy needs with the default prompt. */
export function canaryNumCtxForPolicy(policy: IngestPolicy): number {
  return requiredCanaryContext({ segmentChars: policy.segment_chars, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 });
}

/** The run's view of the verdict cache under its canary identity, or undefined (with a note) when it has no trusted identity. */
function runCache(
  store: VerdictCache,
  pipeline: CheckingPipeline,
  gate: GateResult,
  settings: RecordEntrySettings,
  note?: (message: string) => void,
): { cache: SegmentVerdictCache; records: RecordEntryCache; identityKey: string } | undefined {
  const identity = pipelineIdentity(pipeline, { scope: "ingest_segment", modelDigest: gate.modelDigest, server: gate.server ?? null });
  if (!identity.ok) {
    note?.(`the verdict cache ${displayText(store.path)} is not used for this run: ${identity.reason}`);
    return undefined;
  }
  const cache = segmentVerdictCache({
    get: (sha) => store.get(sha, identity.key),
    put: (sha, value, state) => store.put({ textSha256: sha, identity, state, exercised: true, value }),
  });
  const records = recordEntryCache(
    {
      get: (key) => store.getRecord(key, identity.key),
      put: (key, entry, oldestCheckedAt) => store.putRecord({ recordKey: key, identity, entry, oldestCheckedAt }),
    },
    settings,
  );
  return { cache, records, identityKey: identity.key };
}

/** Step 4: the strict read, every record validated and prepared before the first check (admit-pass.ts); a refusal or an empty input refuses the run. */
async function readInput(
  plan: IngestRunPlan,
  ids: RecordIdIndex,
  prefetch: RecordPrefetch | null,
): Promise<{ read: AdmitPassResult; shard: StreamRunOptions["shard"] }> {
  const { source: input, targets, signal } = plan;
  const stop = (): void => stopIfAborted(plan);
  let source = input.kind === "file" ? fromFile(input.path, signal) : fromNodeStream(input.stream);
  // A shard: the whole file counted first, then only its range read (a stream was refused in step 1).
  let cut: { counted: InputLineCount; range: LineRange } | null = null;
  if (plan.shard !== null && input.kind === "file") {
    const counted = await countInputLines(source, signal).catch(abortFirst(plan));
    stop();
    if (counted.lines === 0) throw new IngestRefusedError("no lines in input, nothing to shard; nothing written");
    cut = { counted, range: shardRange(plan.shard, counted.lines) };
    source = selectLineRange(fromFile(input.path, signal), cut.range, counted, input.path);
  }
  const read = await admitPass(source, {
    policy: plan.policy,
    besidePath: targets.manifestPath,
    ids,
    uniqueIds: plan.limits.uniqueIds,
    manifestVersion: plan.manifestVersion,
    ...(signal ? { signal } : {}),
    ...(cut ? { firstLine: cut.range.first_line } : {}),
    ...(prefetch ? { onPlanned: (index: number, lineSha256: string) => prefetch.offer(index, lineSha256) } : {}),
  }).catch(abortFirst(plan));
  if (!read.ok) {
    stop();
    throw new IngestRefusedError(`${refusalInInput(read.refusal.message, targets.inputPath)}; nothing written`);
  }
  try {
    stop();
    // A shard may hold no record (blank lines only, or more shards than lines): its empty pair
    // still tiles the input.
    if (read.result.records === 0 && cut === null) throw new IngestRefusedError("no records in input; nothing written");
  } catch (error) {
    // The scratch file is ours until the second pass takes it over.
    await read.result.prepared.remove();
    throw error;
  }
  if (cut === null || plan.shard === null) return { read: read.result, shard: undefined };
  const { counted, range } = cut;
  // The reader hashed exactly the bytes of the shard's range.
  const shard = { k: plan.shard.k, n: plan.shard.n, ...range, input_lines: counted.lines, range_sha256: read.result.inputSha256 };
  return { read: read.result, shard: { inputSha256: counted.sha256, shard } };
}

/** Where a run stands when it hands control back to its caller (`ingestSteps`). */
export type IngestStep =
  /** The locks are held and the targets ready: the input is read next. */
  | { readonly step: "start" }
  /** The checks finished: the documents are framed and published next. */
  | { readonly step: "checked"; readonly report: IngestRunReport };

/** Steps 2 to 7 of a resolved plan, pausing at each `IngestStep` while the caller tells its reporter (`resumeAfter`). */
export async function* ingestSteps(plan: IngestRunPlan): AsyncGenerator<IngestStep, IngestFilesResult> {
  const { signal } = plan;
  const { exportPath } = plan.targets;
  // A read from a stream (stdin) can wait forever; destroying the stream ends it.
  const endStream = (): void => {
    if (plan.source.kind === "stream") plan.source.stream.destroy();
  };
  if (plan.source.kind === "stream") {
    if (signal?.aborted) endStream();
    else signal?.addEventListener("abort", endStream, { once: true });
  }
  const resources = new RunResources(plan);
  try {
    // Steps 2 and 3, then step 4: the resources opened, then the input read.
    const { store, reports, lock, ids } = await resources.open();
    yield { step: "start" };
    const prefetch = await resources.startPrefetch();
    const { read, shard } = await readInput(plan, ids, prefetch);
    const prefetched = prefetch === null ? null : await prefetch.finish();
    let run: StreamedRun | null = null;
    try {
      if (prefetched !== null) plan.cache?.prefetch.onStats?.(prefetched.stats);
      // Step 5: the checks, by the caller's pipeline or one built now from the planned options.
      const pipeline = "built" in plan.pipeline ? plan.pipeline.built : new SecurityPipeline(plan.pipeline.options);
      // The context gate; one waiting on a slow backend answers an abort at once, its late outcome dropped.
      const gating = runContextGate(pipeline, plan.policy, { unverifiedPipeline: plan.canary.unverifiedPipeline });
      const gate = await orAbort(gating, signal).catch(abortFirst(plan));
      const cached = store === null ? undefined : runCache(store, pipeline, gate, plan.recordSettings, plan.reporter.warn);
      const identityRow = cached === undefined || prefetched === null ? null : (store as VerdictCache).identityRowId(cached.identityKey);
      run = await streamIngestRun(pipeline, read, {
        ...(cached ? { cache: cached.cache, records: cached.records } : {}),
        // A prefetch that wrote nothing has nothing to take: the run looks every record up itself.
        ...(prefetched !== null && prefetched.stats.entries > 0 && identityRow !== null ? { prefetched: { entries: prefetched, identity: identityRow } } : {}),
        ...(shard ? { shard } : {}),
        ...(plan.allowlist ? { allowlist: plan.allowlist } : {}),
        policy: plan.policy,
        gate,
        concurrency: plan.limits.concurrency,
        maxCanaryFailures: plan.canary.maxCanaryFailures,
        manifestSpool: () => ArraySpool.create(plan.targets.manifestPath, "manifest-records"),
        exportSpool: exportPath === null ? null : () => ArraySpool.create(exportPath, "export-records"),
        ids,
        clock: plan.clock,
        ...(signal ? { signal } : {}),
        ...(plan.reporter.progress ? { onProgress: plan.reporter.progress } : {}),
        ...(plan.reporter.warn ? { onCircuitOpen: (trip: BreakerTrip) => plan.reporter.warn?.(circuitOpenedNow(trip, "records")) } : {}),
        ...(reports ? { onEntry: async (entry: ManifestRecord, line: number) => reports.add(reportItemFromRecord(entry, line)) } : {}),
      }).catch(abortFirst(plan));
      stopIfAborted(plan);
      const report: IngestRunReport = { summary: run.summary, gate, circuitOpen: run.circuitOpen, canary: run.canary };
      yield { step: "checked", report };
      // Step 6, the only step that writes a target, under the run's lock: anything at a target now came during the run, never replaced.
      const published = await publish(
        {
          manifest: run.manifest,
          export: run.export,
          exportRequested: run.summary.head.run.export_requested,
          exportNamesManifest: run.export === null ? null : run.manifest.sha256,
        },
        { manifestPath: plan.targets.manifestPath, exportPath, overwrite: false },
        { fs: plan.fs, lock, signal, log: plan.reporter.warn },
      );
      if (reports !== null) await writeReports(reports, run.summary, published);
      return {
        run: report,
        manifest: run.summary.head,
        published,
        outcome: run.summary.outcome,
        interruptedAfterCommit: signal?.aborted === true,
      };
    } finally {
      await run?.remove();
      await prefetched?.remove();
      await read.prepared.remove();
    }
  } catch (error) {
    // A failure after the pair was published keeps its own words (and exit code).
    const takenOver = error instanceof AfterPublicationError ? null : await resources.locksTakenOver();
    if (takenOver !== null) throw lockTakenOverError(takenOver, error);
    throw resources.previousPairRemoved ? previousPairGone(error) : error;
  } finally {
    signal?.removeEventListener("abort", endStream);
    await resources.close();
  }
}

/** Every option ingestFiles takes; `satisfies` keeps the list equal to the interface. */
const INGEST_FILES_OPTION_KEYS = Object.keys({
  input: true,
  manifest: true,
  export: true,
  overwrite: true,
  policy: true,
  policyLabels: true,
  pipeline: true,
  concurrency: true,
  waitLockSeconds: true,
  maxCanaryFailures: true,
  uniqueIds: true,
  cache: true,
  shard: true,
  unverifiedPipeline: true,
  allow: true,
  reports: true,
  manifestVersion: true,
  signal: true,
  fs: true,
  cwd: true,
  clock: true,
  recordPrefetch: true,
  reporter: true,
} satisfies Record<keyof IngestFilesOptions, true>);

/**
 * Ingests a JSONL file (or stream) and publishes its manifest (and export) crash-safely; returns
 * the run and where the pair went. A refusal throws a LittleCanaryError with a stable `code`
 * (`usage`, `config`, `input_refused`, `backend`, `publish`, `io`): nothing written, and a previous
 * pair (with `overwrite`) untouched before the locks or gone after its removal, never half replaced.
 */
export async function ingestFiles(options: IngestFilesOptions): Promise<IngestFilesResult> {
  // A misspelt option (`exprot`) would otherwise run without it in silence: no export, no pin.
  refuseUnknownOptions("ingestFiles", options, INGEST_FILES_OPTION_KEYS);
  // Step 1: every option resolved and checked before anything is opened, read or deleted.
  const settings = await resolveRunSettings(options);
  const pipeline = typeof options.pipeline === "function" ? options.pipeline(settings.policy) : options.pipeline;
  const reporter = options.reporter ?? {};
  const steps = ingestSteps(Object.freeze({ ...settings, pipeline: { built: pipeline } }));
  let next = await steps.next();
  while (next.done !== true) {
    const step = next.value;
    // Told inside a promise: a reporter that throws at once fails the run at this step too.
    const tell = async () => (step.step === "start" ? reporter.start?.() : reporter.finished?.(step.report));
    next = await resumeAfter(steps, tell());
  }
  return next.value;
}

/** Resumes the run once the caller has told its reporter about a step, or fails it there when telling failed. */
export function resumeAfter(steps: AsyncGenerator<IngestStep, IngestFilesResult>, told: Promise<unknown>) {
  return told.then(
    () => steps.next(),
    (error: unknown) => steps.throw(error),
  );
}

/** Writes the CI reports of a published run; the pair stands, so a failure's error says it was published. */
async function writeReports(reports: CiReports, summary: IngestRunSummary, published: PublishResult): Promise<void> {
  const { counts, run } = summary.head;
  try {
    await reports.finish({
      command: "ingest",
      total: run.records_total,
      counts: {
        admitted: counts.admitted,
        // Allow-listed admissions are among `admitted`; the summary names them apart so a reviewer sees them.
        ...(counts.allowlisted !== undefined ? { "admitted by allowlist": counts.allowlisted } : {}),
        ...Object.fromEntries(Object.entries(counts.by_reason).map(([reason, n]) => [`held: ${reason}`, n])),
      },
      properties: { manifestSha256: published.manifestSha256, ...(published.exportSha256 ? { exportSha256: published.exportSha256 } : {}) },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : "unknown error";
    throw new AfterPublicationError(`the manifest and export were published, but a CI report could not be written (${reason})`, { cause: error });
  }
}

/** A refusal after `overwrite` removed the previous pair says so: "nothing written" alone would let a user believe the old pair still stands. */
function previousPairGone(error: unknown): unknown {
  // After publication the new pair stands in the old one's place: nothing to add.
  if (!(error instanceof LittleCanaryError) || error instanceof AfterPublicationError || error.message.includes("previous pair")) return error;
  error.message = `${error.message} (the previous pair was already removed by --overwrite)`;
  return error;
}
