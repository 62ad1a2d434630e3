// The run plan of one `ingestFiles` call: its options resolved once, at its start, into one
// immutable value that every later stage reads (targets, input, policy, pipeline, allowlist,
// cache, reports, lock, limits). Resolving is step 1 of the run: every setting is checked here,
// in the order the CLI reports its errors (targets, shard, policy, allowlist, pipeline), before
// anything is opened, read, checked or deleted. Nothing here opens a resource (run-resources.ts
// does) or reads the input (files.ts does).
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import type { Allowlist } from "../documents/allowlist.js";
import { resolvePolicy, type IngestPolicy, type PolicyOverrides } from "../documents/policy.js";
import { validateShardSpec, type ShardSpec } from "../documents/shard.js";
import { nodePublishFs, type PublishFs } from "../publish/fs.js";
import type { PublishTargets } from "../publish/targets.js";
import { preflightTargets } from "./target-checks.js";
import { wantsReports, type CiReportOptions } from "../report/ci-reports.js";
import { DEFAULT_MAX_CANARY_FAILURES } from "../pipeline/circuit-breaker.js";
import { readAllowlistFile } from "./allow-file.js";
import type { BreakerTrip } from "../pipeline/circuit-breaker.js";
import type { CanaryTarget } from "../pipeline/canary-warning.js";
import type { CheckingPipeline, GateResult } from "./gate.js";
import type { RecordEntrySettings } from "./record-cache.js";
import type { RecordPrefetchStats } from "./record-prefetch.js";
import type { IngestRunSummary } from "./run-summary.js";

/** The run refused its input or was interrupted before publishing; nothing was written. */
export class IngestRefusedError extends LittleCanaryError {
  override readonly name = "IngestRefusedError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("input_refused", message, options);
  }
}

/** What a finished run reports before publication: its summary, the context gate, the breaker. */
export interface IngestRunReport {
  readonly summary: IngestRunSummary;
  readonly gate: GateResult;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
  /** Where the canary calls went and what the model check saw; null for a pipeline this library did not build. */
  readonly canary: CanaryTarget | null;
}

/**
 * What a run tells its caller as it goes (progress and warnings; the settings are options).
 * Each awaited call runs inside the sequence (the locks are held), so one that throws fails the
 * run before anything is published.
 */
export interface IngestReporter {
  /** Targets checked under the lock (and the previous pair removed): the input is read next. */
  readonly start?: () => void | Promise<void>;
  /** Records done so far (a record is done when all its checks are). */
  readonly progress?: (done: number, total: number) => void;
  /** The checks finished and both documents are framed; they are published next. */
  readonly finished?: (run: IngestRunReport) => void | Promise<void>;
  /**
   * A note that changes nothing in the result: from publication cleanup or rollback (a retained
   * concurrent file, a leftover temp), or why a requested verdict cache is not used for this run.
   */
  readonly warn?: (message: string) => void;
}

/**
 * The record prefetch of a run with a verdict cache (record-prefetch.ts): where its worker
 * script is (by default the compiled one beside the library), from what input size it starts
 * (default RECORD_PREFETCH_MIN_BYTES; standard input never), and what it did.
 */
interface RecordPrefetchOptions {
  /** The worker script (a file: URL); a missing script means no prefetch. */
  readonly workerUrl?: URL;
  /** Input files smaller than this are read without a prefetch. */
  readonly minInputBytes?: number;
  /** Told what the prefetch did, once the first pass has read the input. */
  readonly onStats?: (stats: RecordPrefetchStats) => void;
}

/** Input files smaller than this are read without a record prefetch: starting its worker costs about as much as it saves on a few thousand records. */
const RECORD_PREFETCH_MIN_BYTES = 8 * 1024 * 1024;

/** Options of `ingestFiles`. */
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
  /** Tuning of the record prefetch of a run with a verdict cache. */
  readonly recordPrefetch?: RecordPrefetchOptions;
  /** Progress and warnings. */
  readonly reporter?: IngestReporter;
}

/** Where the records come from: a file (resolved path) or a stream read once. */
type IngestSource = { readonly kind: "file"; readonly path: string } | { readonly kind: "stream"; readonly stream: Readable };

/** One `ingestFiles` run, every option resolved and checked; the stages read only this. */
export interface IngestRunPlan {
  readonly targets: PublishTargets;
  readonly source: IngestSource;
  /** Only this shard of the file's lines (a file source only). */
  readonly shard: ShardSpec | null;
  readonly policy: IngestPolicy;
  readonly pipeline: CheckingPipeline;
  /** Whether a pipeline this library did not build may run, and when its breaker opens. */
  readonly canary: { readonly unverifiedPipeline: boolean; readonly maxCanaryFailures: number };
  readonly allowlist: Allowlist | null;
  /** What a stored whole-record entry depends on besides the canary identity (record-cache.ts). */
  readonly recordSettings: RecordEntrySettings;
  /** The verdict cache file and its record prefetch, or null for a run without a cache. */
  readonly cache: {
    readonly path: string;
    readonly prefetch: { readonly minInputBytes: number; readonly workerUrl?: URL; readonly onStats?: (stats: RecordPrefetchStats) => void };
  } | null;
  /** The CI reports to open, the input they name, the paths they may not overwrite; null for none. */
  readonly reports: { readonly options: CiReportOptions; readonly input: string | null; readonly outputs: readonly string[] } | null;
  readonly lock: { readonly waitSeconds: number };
  readonly limits: { readonly concurrency: number; readonly uniqueIds: boolean };
  readonly signal: AbortSignal | undefined;
  readonly fs: PublishFs;
  readonly cwd: string;
  readonly clock: () => Date;
  /** What the run itself tells as it goes; the caller tells `start` and `finished` between its steps. */
  readonly reporter: Pick<IngestReporter, "progress" | "warn">;
}

/** What an abort rejects with: the caller's own error when it is one of ours. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof LittleCanaryError) return reason;
  return new IngestRefusedError("interrupted; nothing written", { cause: reason });
}

/** Throws the abort reason when the run's signal has aborted. */
export function stopIfAborted(plan: Pick<IngestRunPlan, "signal">): void {
  if (plan.signal?.aborted) throw abortReason(plan.signal);
}

/** A run plan but for its pipeline, which is built from the plan's policy. */
export type IngestRunSettings = Omit<IngestRunPlan, "pipeline">;

/**
 * Step 1: the targets pre-flighted, then every setting but the pipeline resolved and checked
 * (shard, policy, allowlist), before anything is opened, read, checked or deleted. The caller
 * builds the pipeline for the resolved policy next (still before anything is opened).
 */
export async function resolveRunSettings(options: Omit<IngestFilesOptions, "pipeline">): Promise<IngestRunSettings> {
  const cwd = options.cwd ?? process.cwd();
  const targets: PublishTargets = {
    manifestPath: resolve(cwd, options.manifest),
    exportPath: options.export == null ? null : resolve(cwd, options.export),
    inputPath: typeof options.input === "string" ? resolve(cwd, options.input) : null,
    overwrite: options.overwrite === true,
  };
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
  const allowlist = options.allow == null ? null : typeof options.allow === "string" ? await readAllowlistFile(resolve(cwd, options.allow)) : options.allow;
  const prefetch = options.recordPrefetch;
  const outputs = [targets.manifestPath, ...(targets.exportPath === null ? [] : [targets.exportPath])];
  return Object.freeze({
    targets,
    source: typeof options.input === "string" ? { kind: "file", path: targets.inputPath as string } : { kind: "stream", stream: options.input },
    shard: options.shard ?? null,
    policy,
    canary: {
      unverifiedPipeline: options.unverifiedPipeline === true,
      maxCanaryFailures: options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES,
    },
    allowlist,
    recordSettings: { policy, ...(allowlist ? { allowlist } : {}) },
    cache:
      options.cache == null
        ? null
        : {
            path: resolve(cwd, options.cache),
            prefetch: {
              minInputBytes: prefetch?.minInputBytes ?? RECORD_PREFETCH_MIN_BYTES,
              ...(prefetch?.workerUrl ? { workerUrl: prefetch.workerUrl } : {}),
              ...(prefetch?.onStats ? { onStats: prefetch.onStats } : {}),
            },
          },
    reports: wantsReports(options.reports)
      ? { options: options.reports as CiReportOptions, input: typeof options.input === "string" ? options.input : null, outputs }
      : null,
    lock: { waitSeconds: options.waitLockSeconds ?? 0 },
    limits: { concurrency: options.concurrency ?? 1, uniqueIds: options.uniqueIds === true },
    signal: options.signal,
    fs: options.fs ?? nodePublishFs,
    cwd,
    clock: options.clock ?? (() => new Date()),
    reporter: options.reporter ?? {},
  } satisfies IngestRunSettings);
}
