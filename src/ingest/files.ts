// `ingestFiles`: one ingest run from a JSONL file (or stream) to a published manifest/export
// pair, crash-safe, as a library call. It owns the whole sequence that `little-canary ingest`
// runs, in this order:
//
//   1. pre-flight the targets (distinct paths, never the input, no existing file without
//      `overwrite`), then resolve the policy and build the pipeline: every setting is checked
//      before anything is read, checked or deleted;
//   2. take the publication locks on the manifest and export paths, and repeat the pre-flight
//      under them (only answers given while holding the lock are final);
//   3. with `overwrite`, remove the previous pair now: from here on a failure leaves no pair,
//      never an old pair that looks current; then check the target directories;
//   4. read the input strictly (reader limits from the policy); with `shard`, the file is
//      counted first and only the shard's lines are read (a file changed in between is refused);
//   5. run the checks (an abort answers at once, the abandoned run's late outcome is dropped);
//   6. publish (the one step that writes: see `publishRun`), which rolls back on any failure,
//      abort or lost lock before its commit;
//   7. release the locks, whatever happened.
//
// An abort before the commit rejects with the signal's reason (wrapped in IngestRefusedError
// when it is not one of this library's errors) and leaves nothing written. An abort after the
// commit does not undo it: the result says `interruptedAfterCommit` and the pair stands.
import { lstat, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { requiredCanaryContext } from "../canary/context.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { refusalInInput } from "../jsonl/refusal-text.js";
import { countInputLines, selectLineRange, type InputLineCount } from "../jsonl/line-range.js";
import { fromFile, fromNodeStream } from "../jsonl/sources.js";
import { shardRange, validateShardSpec, type LineRange, type ShardSpec } from "../documents/shard.js";
import { nodePublishFs, type PublishFs } from "../publish/fs.js";
import type { PublicationLock } from "../publish/lock.js";
import { lockTargets, publish, removePreviousPair, type PublishResult } from "../publish/publish.js";
import { checkTargetDirectories, preflightTargets, type PublishTargets } from "../publish/targets.js";
import { DEFAULT_MAX_CANARY_FAILURES } from "../schedule/circuit-breaker.js";
import type { IngestOutcomeCode } from "./exit-code.js";
import { runContextGate, type CheckingPipeline, type GateResult } from "./gate.js";
import { resolvePolicy, type IngestPolicy, type PolicyOverrides } from "../documents/policy.js";
import type { BreakerTrip } from "../schedule/circuit-breaker.js";
import { admitPass, type AdmitPassResult } from "./admit-pass.js";
import type { RecordIdIndex } from "./id-index.js";
import { IdIndex } from "../cache/id-index.js";
import { pipelineIdentity } from "../cache/identity.js";
import { VerdictCache } from "../cache/verdict-cache.js";
import { segmentVerdictCache, type SegmentVerdictCache } from "./segment-cache.js";
import { recordEntryCache, type RecordEntryCache, type RecordEntrySettings } from "./record-cache.js";
import { RecordPrefetch, type RecordPrefetchStats } from "./record-prefetch.js";
import type { IngestRunSummary, ManifestHead } from "./run-summary.js";
import { streamIngestRun, type StreamedRun, type StreamRunOptions } from "./stream-run.js";
import { removeLeftoverScratch, scratchPathFor } from "../spool/scratch-file.js";
import { CiReports, wantsReports, type CiReportOptions } from "../report/ci-reports.js";
import { reportItemFromRecord } from "../report/report-item.js";
import type { ManifestRecord } from "../documents/schemas.js";
import type { Allowlist } from "../documents/allowlist.js";
import { readAllowlistFile } from "./allow-file.js";
import { displayText } from "../core/display-text.js";

/** The run refused its input or was interrupted before publishing; nothing was written. */
export class IngestRefusedError extends LittleCanaryError {
  override readonly name = "IngestRefusedError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("input_refused", message, options);
  }
}

/**
 * Points in the run where a caller may report progress. Each awaited hook runs inside the
 * sequence (the locks are held), so a hook that throws fails the run before anything is
 * published.
 */
export interface IngestFilesHooks {
  /** Targets checked under the lock (and the previous pair removed): the input is read next. */
  readonly beforeRead?: () => void | Promise<void>;
  /** Records done so far (a record is done when all its checks are). */
  readonly onProgress?: (done: number, total: number) => void;
  /** The checks finished and both documents are framed; they are published next. */
  readonly afterRun?: (run: IngestRunReport) => void | Promise<void>;
  /** Notes from publication cleanup or rollback (a retained concurrent file, a leftover temp). */
  readonly onPublishNote?: (message: string) => void;
  /** Why a requested verdict cache is not used for this run (the run goes on without it). */
  readonly onCacheNote?: (message: string) => void;
  /**
   * The record prefetch of a run with a verdict cache (record-prefetch.ts): where its worker
   * script is (by default the compiled one beside the library), from what input size it starts
   * (default RECORD_PREFETCH_MIN_BYTES; standard input never), and what it did.
   */
  readonly recordPrefetch?: {
    /** The worker script (a file: URL); a missing script means no prefetch. */
    readonly workerUrl?: URL;
    /** Input files smaller than this are read without a prefetch. */
    readonly minInputBytes?: number;
    /** Told what the prefetch did, once the first pass has read the input. */
    readonly onStats?: (stats: RecordPrefetchStats) => void;
  };
}

/**
 * Input files smaller than this are read without a record prefetch: starting its worker costs
 * about as much as it saves on a few thousand records.
 */
export const RECORD_PREFETCH_MIN_BYTES = 8 * 1024 * 1024;

export interface IngestFilesOptions {
  /** The JSONL input: a path (resolved against `cwd`) or a stream (destroyed on abort). */
  readonly input: string | Readable;
  /** Where the manifest is published (resolved against `cwd`). */
  readonly manifest: string;
  /** Where the export of admitted records is published; omit for a manifest only. */
  readonly export?: string | null;
  /** Replace an existing pair (removed under the lock once every setting is valid). */
  readonly overwrite?: boolean;
  /** strict/v1 with these overrides; an invalid value throws UsageError before anything is read. */
  readonly policy?: PolicyOverrides;
  /**
   * The pipeline that checks each segment, or a function that builds it from the resolved
   * policy (called after the target pre-flight, so its errors come in the same order as the
   * CLI's). `canaryNumCtxForPolicy` gives the context window a segment needs.
   */
  readonly pipeline: CheckingPipeline | ((policy: IngestPolicy) => CheckingPipeline);
  /** Records checked at once (default 1); the manifest is the same for any value. */
  readonly concurrency?: number;
  /** Seconds to wait for another run's publication lock (default 0: fail at once). */
  readonly waitLockSeconds?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5; 0 never). */
  readonly maxCanaryFailures?: number;
  /** Hold (as malformed) a record whose id repeats an earlier record's id. */
  readonly uniqueIds?: boolean;
  /**
   * A verdict cache file (resolved against `cwd`; created if missing): a segment whose verdict
   * is stored under this run's canary identity is not sent again, and every new exercised
   * pass, flag or block is stored as it completes (docs/cache.md).
   */
  readonly cache?: string | null;
  /**
   * Check only shard `k` of `n` of the input (0-based k): the k-th of n contiguous ranges of its
   * physical lines (src/documents/shard.ts), recorded as run.shard with the whole input's
   * SHA-256. Needs a file input (it is read twice: counted, then read; a file that changed in
   * between is refused). Ids and duplicates are checked within the shard; an empty shard
   * publishes an empty pair (docs/shards.md).
   */
  readonly shard?: ShardSpec | null;
  /** Let a pipeline this library did not build run; recorded as canary_context_verified:false. */
  readonly unverifiedPipeline?: boolean;
  /**
   * The false-block allowlist (`--allow`): a list parsed by `parseAllowlist`, or the path of an
   * allow file (resolved against `cwd`, read before anything else is). A record held for
   * detections alone (never a coverage failure) whose content hash is listed is admitted and
   * recorded as such (`admission_basis: "allowlist"`, run.allowlist); docs/ingest.md, "False
   * blocks: the allowlist". With it, `policy.stop_after_hold` defaults to false (every segment
   * is checked, so a record blocked early can still be fully inspected); a pipeline given here
   * should be built with `skipCanaryIfStructuralBlocks: false`, or text the structural layer
   * blocks is never inspected by the canary and such a record can never be admitted.
   */
  readonly allow?: Allowlist | string | null;
  /**
   * CI reports of the held records (`--sarif`, `--junit`, `--github`; docs/ci.md): opened before
   * anything is read, fed each record as it is finished, written once the pair is published.
   */
  readonly reports?: CiReportOptions;
  /** Aborting stops the run; before the commit it rolls back and rejects, after it the pair stands. */
  readonly signal?: AbortSignal;
  /** File system for publication (tests and the crash bench inject faults and delays here). */
  readonly fs?: PublishFs;
  /** Directory relative paths are resolved against (default: the process's). */
  readonly cwd?: string;
  /** The clock for the manifest's timestamps (defaults to the system clock). */
  readonly clock?: () => Date;
  readonly hooks?: IngestFilesHooks;
}

/** What a finished run reports before publication: its summary, the context gate, the breaker. */
export interface IngestRunReport {
  readonly summary: IngestRunSummary;
  readonly gate: GateResult;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
}

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

/**
 * The run's view of the verdict cache under its canary identity, or undefined (with a note)
 * when the pipeline has no identity a cached verdict could be trusted under.
 */
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

/** The record prefetch for this run, or null when the run has no cache, reads standard input or a small file, or the worker script is missing. */
async function startPrefetch(
  options: IngestFilesOptions,
  targets: PublishTargets,
  store: VerdictCache,
  settings: RecordEntrySettings,
): Promise<RecordPrefetch | null> {
  const hook = options.hooks?.recordPrefetch;
  if (targets.inputPath === null) return null;
  // Only a head start: an input that cannot be stat'ed here is refused by the reader, not here.
  const size = await stat(targets.inputPath).then(
    (s) => s.size,
    () => null,
  );
  if (size === null || size < (hook?.minInputBytes ?? RECORD_PREFETCH_MIN_BYTES)) return null;
  return RecordPrefetch.start({
    cachePath: store.path,
    settings,
    besidePath: targets.manifestPath,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(hook?.workerUrl ? { workerUrl: hook.workerUrl } : {}),
  });
}

/** What an abort rejects with: the caller's own error when it is one of ours. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof LittleCanaryError) return reason;
  return new IngestRefusedError("interrupted; nothing written", { cause: reason });
}

/** Rejects with the abort reason once the signal aborts (never resolves). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(abortReason(signal));
    else signal.addEventListener("abort", () => reject(abortReason(signal)), { once: true });
  });
}

/** Steps 2 and 3: locks, the repeated pre-flight, the previous pair, the directories. */
async function prepareTargets(
  targets: PublishTargets,
  options: IngestFilesOptions,
  fs: PublishFs,
  stop: () => void,
  state: { previousPairRemoved: boolean },
): Promise<PublicationLock> {
  const lock = await lockTargets(targets, options.waitLockSeconds ?? 0, options.signal);
  try {
    await preflightTargets(targets);
    stop();
    if (targets.overwrite) {
      const existing = [targets.manifestPath, targets.exportPath].filter((path): path is string => path !== null);
      const present = await Promise.all(
        existing.map((path) =>
          lstat(path).then(
            () => true,
            () => false,
          ),
        ),
      );
      // Marked once the removal is done: its own errors say what they did and did not remove.
      await removePreviousPair(targets, fs);
      state.previousPairRemoved = present.some(Boolean);
    }
    await checkTargetDirectories(targets);
    // Scratch files of a run that was killed before it could remove them; the lock says no
    // live run owns them.
    for (const target of [targets.manifestPath, targets.exportPath]) {
      if (target === null) continue;
      for (const path of await removeLeftoverScratch(target))
        options.hooks?.onPublishNote?.(`removed a scratch file left by an interrupted run: ${displayText(path)}`);
    }
    return lock;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Step 4: the strict read, every record validated and prepared before the first check
 * (admit-pass.ts); a refusal or an empty input refuses the run.
 */
async function readInput(
  options: IngestFilesOptions,
  targets: PublishTargets,
  policy: IngestPolicy,
  ids: RecordIdIndex,
  stop: () => void,
  prefetch: RecordPrefetch | null,
): Promise<{ read: AdmitPassResult; shard: StreamRunOptions["shard"] }> {
  let source = typeof options.input === "string" ? fromFile(targets.inputPath as string) : fromNodeStream(options.input);
  // A shard: the whole file counted first, then only its range read (a stream was refused in step 1).
  let cut: { counted: InputLineCount; range: LineRange; shard: ShardSpec } | null = null;
  if (options.shard != null) {
    const path = targets.inputPath as string;
    const counted = await countInputLines(source, options.signal).catch((error: unknown) => {
      stop();
      throw error;
    });
    stop();
    if (counted.lines === 0) throw new IngestRefusedError("no lines in input, nothing to shard; nothing written");
    cut = { counted, range: shardRange(options.shard, counted.lines), shard: options.shard };
    source = selectLineRange(fromFile(path), cut.range, counted, path);
  }
  const read = await admitPass(source, {
    policy,
    besidePath: targets.manifestPath,
    ids,
    uniqueIds: options.uniqueIds === true,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(cut ? { firstLine: cut.range.first_line } : {}),
    ...(prefetch ? { onPlanned: (index: number, lineSha256: string) => prefetch.offer(index, lineSha256) } : {}),
  }).catch((error: unknown) => {
    stop();
    throw error;
  });
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
    await read.result.spool.remove();
    throw error;
  }
  if (cut === null) return { read: read.result, shard: undefined };
  const { counted, range, shard } = cut;
  // The reader hashed exactly the bytes of the shard's range.
  return {
    read: read.result,
    shard: { inputSha256: counted.sha256, shard: { k: shard.k, n: shard.n, ...range, input_lines: counted.lines, range_sha256: read.result.inputSha256 } },
  };
}

/**
 * Step 6, the only step that writes a target: the run's documents, framed from their spools,
 * copied to their temps and linked into place under the lock the run holds.
 * The previous pair (with `overwrite`) was removed under this same lock, so anything at a
 * target now was put there by someone else during the run: publication never replaces it.
 */
async function publishRun(
  run: StreamedRun,
  targets: PublishTargets,
  lock: PublicationLock,
  options: IngestFilesOptions,
  fs: PublishFs,
): Promise<PublishResult> {
  const note = options.hooks?.onPublishNote;
  return publish(
    {
      framed: true,
      manifest: run.manifest,
      export: run.export,
      exportRequested: run.summary.head.run.export_requested,
      exportNamesManifest: run.export === null ? null : run.manifest.sha256,
    },
    { manifestPath: targets.manifestPath, exportPath: targets.exportPath, overwrite: false },
    { fs, lock, ...(options.signal ? { signal: options.signal } : {}), ...(note ? { log: note } : {}) },
  );
}

/**
 * Ingests a JSONL file (or stream) and publishes its manifest (and export) crash-safely:
 * pre-flight → lock → read → check → publish → (rollback) → unlock. Returns the run and where
 * the pair went; throws a LittleCanaryError with a stable `code` when the run is refused
 * (`usage`, `config`, `input_refused`, `backend`, `publish`, `io`), in which case nothing was
 * written and, with `overwrite`, the previous pair is either untouched (a refusal before the
 * locks) or gone (a failure after it was removed), never half replaced.
 */
export async function ingestFiles(options: IngestFilesOptions): Promise<IngestFilesResult> {
  const fs = options.fs ?? nodePublishFs;
  const cwd = options.cwd ?? process.cwd();
  const signal = options.signal;
  const targets: PublishTargets = {
    manifestPath: resolve(cwd, options.manifest),
    exportPath: options.export == null ? null : resolve(cwd, options.export),
    inputPath: typeof options.input === "string" ? resolve(cwd, options.input) : null,
    overwrite: options.overwrite === true,
  };
  const stop = (): void => {
    if (signal?.aborted) throw abortReason(signal);
  };
  // A read from a stream (stdin) can wait forever; destroying the stream ends it.
  const stream = typeof options.input === "string" ? null : options.input;
  const endStream = (): void => {
    stream?.destroy();
  };
  if (stream !== null) {
    if (signal?.aborted) endStream();
    else signal?.addEventListener("abort", endStream, { once: true });
  }
  let lock: PublicationLock | null = null;
  const state = { previousPairRemoved: false };
  const clock = options.clock ?? (() => new Date());
  let ids: RecordIdIndex | null = null;
  let store: VerdictCache | null = null;
  let prefetch: RecordPrefetch | null = null;
  let reports: CiReports | null = null;
  try {
    // Step 1: targets, then every setting, before anything is read, checked or deleted.
    await preflightTargets(targets);
    if (options.shard != null) {
      validateShardSpec(options.shard);
      if (typeof options.input !== "string") {
        throw new UsageError("--shard needs an input file: standard input cannot be read twice (save it to a file first)");
      }
    }
    // An allowlist can only admit a record whose every segment was inspected, so with one a
    // hold does not stop the checks of its record unless the caller asks for that.
    const allowing = options.allow != null && options.policy?.stop_after_hold === undefined;
    const policy = resolvePolicy(allowing ? { ...options.policy, stop_after_hold: false } : (options.policy ?? {}));
    const allowlist =
      options.allow == null ? undefined : typeof options.allow === "string" ? await readAllowlistFile(resolve(cwd, options.allow)) : options.allow;
    const pipeline = typeof options.pipeline === "function" ? options.pipeline(policy) : options.pipeline;
    // Opened before anything is read, so a file that is not a verdict cache refuses the run now.
    store = options.cache == null ? null : VerdictCache.open(resolve(cwd, options.cache), { clock });
    const input = typeof options.input === "string" ? options.input : null;
    const outputs = [targets.manifestPath, ...(targets.exportPath === null ? [] : [targets.exportPath])];
    reports = wantsReports(options.reports) ? await CiReports.open(options.reports as CiReportOptions, input, cwd, outputs) : null;
    const reporting = reports;
    lock = await prepareTargets(targets, options, fs, stop, state);
    ids = IdIndex.createAt(scratchPathFor(targets.manifestPath, "ids"));
    await options.hooks?.beforeRead?.();
    const settings: RecordEntrySettings = { policy, ...(allowlist ? { allowlist } : {}) };
    prefetch = store === null ? null : await startPrefetch(options, targets, store, settings);
    const { read, shard } = await readInput(options, targets, policy, ids as RecordIdIndex, stop, prefetch);
    const prefetched = prefetch === null ? null : await prefetch.finish();
    let run: StreamedRun | null = null;
    try {
      if (prefetched !== null) options.hooks?.recordPrefetch?.onStats?.(prefetched.stats);
      const gating = runContextGate(pipeline, policy, { unverifiedPipeline: options.unverifiedPipeline === true });
      // A gate waiting on a slow backend answers an abort now; its late outcome is dropped.
      gating.catch(() => undefined);
      const gate = signal ? await Promise.race([gating, aborted(signal)]) : await gating;
      const cached = store === null ? undefined : runCache(store, pipeline, gate, settings, options.hooks?.onCacheNote);
      const identityRow = cached === undefined || prefetched === null ? null : (store as VerdictCache).identityRowId(cached.identityKey);
      run = await streamIngestRun(pipeline, read, {
        ...(cached ? { cache: cached.cache, records: cached.records } : {}),
        // A prefetch that wrote nothing has nothing to take: the run looks every record up itself.
        ...(prefetched !== null && prefetched.stats.entries > 0 && identityRow !== null ? { prefetched: { entries: prefetched, identity: identityRow } } : {}),
        ...(shard ? { shard } : {}),
        ...(allowlist ? { allowlist } : {}),
        policy,
        gate,
        concurrency: options.concurrency ?? 1,
        maxCanaryFailures: options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES,
        manifestPath: targets.manifestPath,
        exportPath: targets.exportPath,
        ids: ids as RecordIdIndex,
        clock,
        startedAt: clock(),
        ...(signal ? { signal } : {}),
        ...(options.hooks?.onProgress ? { onProgress: options.hooks.onProgress } : {}),
        ...(reporting ? { onEntry: async (entry: ManifestRecord, line: number) => reporting.add(reportItemFromRecord(entry, line)) } : {}),
      }).catch((error: unknown) => {
        stop();
        throw error;
      });
      stop();
      const report: IngestRunReport = { summary: run.summary, gate, circuitOpen: run.circuitOpen };
      await options.hooks?.afterRun?.(report);
      const published = await publishRun(run, targets, lock, options, fs);
      if (reporting !== null) await writeReports(reporting, run.summary, published);
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
      await read.spool.remove();
    }
  } catch (error) {
    throw state.previousPairRemoved ? previousPairGone(error) : error;
  } finally {
    signal?.removeEventListener("abort", endStream);
    await prefetch?.remove();
    ids?.close();
    store?.close();
    await reports?.remove();
    await lock?.release();
  }
}

/**
 * Writes the CI reports of a published run. The pair stands whatever happens here, so a report
 * that cannot be written fails with an error that says the pair was published.
 */
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
    throw new LittleCanaryError("io", `the manifest and export were published, but a CI report could not be written (${reason})`, { cause: error });
  }
}

/**
 * A refusal after `overwrite` removed the previous pair says so: "nothing written" alone would
 * let a user believe the old pair still stands.
 */
function previousPairGone(error: unknown): unknown {
  if (!(error instanceof LittleCanaryError) || error.message.includes("previous pair")) return error;
  error.message = `${error.message} (the previous pair was already removed by --overwrite)`;
  return error;
}
