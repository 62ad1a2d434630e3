// `little-canary ingest [FILE|-] --manifest PATH [--export PATH]`: admit records for a RAG index
// under strict/v1 and publish a hash-bound manifest (and export of admitted records).
// Every refusal prints `error: …` and exits 3 with nothing written. The summary on stdout never
// contains record text. The run holds the publication lock on the manifest path from pre-flight
// to the end of publication; SIGINT/SIGTERM at any point roll back and exit 3
// (docs/publication.md).
import { resolve } from "node:path";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/canary/system-prompt.js";
import { requiredCanaryContext } from "../../src/canary/context.js";
import { resolveCanaryTimeout } from "../../src/config/timeout.js";
import { LittleCanaryError, UsageError } from "../../src/errors.js";
import { EXIT_EXPLANATIONS, ingestExitCode } from "../../src/ingest/exit-code.js";
import { resolvePolicy } from "../../src/ingest/policy.js";
import { ingestRecords, readerLimitsForPolicy, type DuplicateId, type IngestRun } from "../../src/ingest/run.js";
import { CIRCUIT_OPEN_ERROR, DEFAULT_MAX_CANARY_FAILURES, observeCanary } from "../../src/schedule/circuit-breaker.js";
import { canaryOutageWarning, canaryTarget, circuitOpenWarning, type CanaryTarget } from "../../src/config/canary-warning.js";
import { readRecords } from "../../src/jsonl/read.js";
import { fromFile, fromNodeStream } from "../../src/jsonl/sources.js";
import { HOLD_REASONS, type IngestManifest } from "../../src/manifest/schemas.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { validateServiceUrl } from "../../src/canary/endpoint.js";
import { nodePublishFs, type PublishFs } from "../../src/publish/fs.js";
import type { PublicationLock } from "../../src/publish/lock.js";
import { lockTargets, publish, removePreviousPair, type PublishResult } from "../../src/publish/publish.js";
import { checkTargetDirectories, preflightTargets, type PublishTargets } from "../../src/publish/targets.js";
import type { CliIo } from "../io.js";
import { hintIfTerminalStdin, OutputClosedError, writeOut } from "../io.js";
import type { CanaryFlags } from "../options.js";
import { plural } from "../plural.js";
import { createProgress } from "../progress.js";

export interface IngestFlags extends CanaryFlags {
  manifest: string;
  export?: string;
  overwrite?: boolean;
  json?: boolean;
  segmentChars?: number;
  segmentOverlap?: number;
  maxSegments?: number;
  maxItemBytes?: number;
  maxItems?: number;
  maxTotalBytes?: number;
  maxMetadataKeys?: number;
  maxMetadataValueChars?: number;
  concurrency: number;
  /** Seconds to wait for another run's publication lock on the same manifest (default 0). */
  waitLock?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
  /** Hold a record whose id repeats an earlier record's id. */
  uniqueIds?: boolean;
}

export class IngestRefusedError extends LittleCanaryError {
  override readonly name = "IngestRefusedError";
  constructor(message: string) {
    super("input_refused", message);
  }
}

/** Held records listed one per line in the summary; the rest are only counted. */
export const SUMMARY_HELD_LIMIT = 20;

/**
 * The summary: nine lines (ingest.md §8), then the held records, one `held:` line each
 * (index, the first 16 hex digits of the id's SHA-256, reasons, and for an over-budget record
 * the limit it exceeds and the flag that raises it), the first 20 and then a count.
 * No record text and no plaintext label of a held record is ever printed.
 */
export function formatIngestSummary(manifest: IngestManifest, published: PublishResult, exitCode: 0 | 1 | 2): string {
  const c = manifest.counts;
  const reasons = HOLD_REASONS.filter((reason) => c.by_reason[reason] > 0).map((reason) => `${reason}=${c.by_reason[reason]}`);
  const lines = [
    `ingest (${manifest.policy.name}): ${plural(manifest.run.records_total, "record")}, ${c.admitted} admitted, ${c.held} held`,
    `hold reasons: ${reasons.length > 0 ? reasons.join(" ") : "none"}`,
    `detection: none=${c.detection.none} flag=${c.detection.flag} block=${c.detection.block} not_checked=${c.detection.not_checked}`,
    `coverage: complete=${c.coverage.complete} partial=${c.coverage.partial} none=${c.coverage.none}`,
    `checks performed: ${manifest.run.checks_performed}`,
    `input sha256=${manifest.run.input_sha256 ?? "None"}`,
    `manifest: ${published.manifestPath} sha256=${published.manifestSha256}`,
    published.exportPath !== null
      ? `export: ${published.exportPath} sha256=${published.exportSha256} (${plural(c.admitted, "admitted record")})`
      : "export: not requested",
    `exit ${exitCode}: ${EXIT_EXPLANATIONS[exitCode]}`,
  ];
  const held = manifest.records.filter((record) => record.admission === "held");
  for (const record of held.slice(0, SUMMARY_HELD_LIMIT)) {
    const id = record.id_sha256 === null ? "id none" : `id_sha256=${record.id_sha256.slice(0, 16)}`;
    // An over-budget detail is built from numbers and flag names only, so it can be shown; a
    // malformed record's detail is not repeated here.
    const detail = record.hold_reasons[0] === "over_budget" && record.detail !== null ? ` (${record.detail.replace(/^record \d+: /, "")})` : "";
    lines.push(`held: record ${record.index} ${id} ${record.hold_reasons.join(",")}${detail}`);
  }
  if (held.length > SUMMARY_HELD_LIMIT) {
    const more = held.length - SUMMARY_HELD_LIMIT;
    lines.push(`held: … and ${plural(more, "more held record")} (see the manifest's records)`);
  }
  return `${lines.join("\n")}\n`;
}


/**
 * The warnings a finished run earns, one line each, none when all went well: repeated ids, and
 * the canary backend failing (the breaker opening, else checks that found it unreachable).
 */
export function ingestRunWarnings(run: IngestRun, target: CanaryTarget, uniqueIds: boolean): string[] {
  const warnings: string[] = [];
  const duplicates = run.duplicateIds;
  if (duplicates.length > 0) {
    const first = duplicates[0] as DuplicateId;
    const repeat = `${duplicates.length} ${duplicates.length === 1 ? "record repeats" : "records repeat"} an earlier record's id (first: record ${first.index} repeats record ${first.firstIndex})`;
    warnings.push(
      uniqueIds
        ? `warning: ${repeat}; held as malformed (--unique-ids)\n`
        : `warning: ${repeat}; counted in counts.duplicate_ids, checked and admitted like any other; pass --unique-ids to hold them\n`,
    );
  }
  const records = run.manifest.document.records;
  if (run.circuitOpen !== null) {
    const notSent = records.filter((r) => r.segments.some((s) => s.error === CIRCUIT_OPEN_ERROR)).length;
    warnings.push(circuitOpenWarning(target, run.circuitOpen, `${plural(notSent, "record")} of ${records.length}`));
    return warnings;
  }
  let reason: "unavailable" | "timeout" | null = null;
  let affected = 0;
  for (const record of records) {
    const outage = record.segments.map((s) => (s.verdict === null ? null : observeCanary(s.verdict))).find((o) => o?.kind === "outage");
    if (outage === undefined || outage === null || outage.kind !== "outage") continue;
    reason ??= outage.reason;
    affected++;
  }
  if (reason !== null) warnings.push(canaryOutageWarning(target, reason, `${plural(affected, "record")} of ${records.length}`));
  return warnings;
}

export interface IngestRunOptions {
  /** File system for publication (tests and the crash bench inject faults and delays here). */
  readonly fs?: PublishFs;
}

export async function runIngest(input: string, flags: IngestFlags, io: CliIo, options: IngestRunOptions = {}): Promise<number> {
  const fs = options.fs ?? nodePublishFs;
  const targets: PublishTargets = {
    manifestPath: resolve(io.cwd, flags.manifest),
    exportPath: flags.export === undefined ? null : resolve(io.cwd, flags.export),
    inputPath: input === "-" ? null : resolve(io.cwd, input),
    overwrite: flags.overwrite === true,
  };
  // SIGINT/SIGTERM at any point: stop, roll back whatever publication started, exit 3. The
  // handler is registered first so no phase of the run can be interrupted without cleanup.
  const controller = new AbortController();
  const unregister = io.onSignal((signal) => {
    if (controller.signal.aborted) return;
    controller.abort(new IngestRefusedError(`interrupted by ${signal}; nothing written`));
    // A read from stdin can wait forever; destroying the stream ends it.
    if (input === "-") io.stdin.destroy();
  });
  const stopIfInterrupted = (): void => {
    if (controller.signal.aborted) throw controller.signal.reason;
  };
  let lock: PublicationLock | null = null;
  const progress = createProgress(io, "ingest");
  try {
    // 1. Targets, 2. every setting — all before anything is read, checked or deleted.
    await preflightTargets(targets);
    const policy = resolvePolicy({
      segment_chars: flags.segmentChars,
      segment_overlap: flags.segmentOverlap,
      max_segments: flags.maxSegments,
      max_item_bytes: flags.maxItemBytes,
      max_items: flags.maxItems,
      max_total_bytes: flags.maxTotalBytes,
      max_metadata_keys: flags.maxMetadataKeys,
      max_metadata_value_chars: flags.maxMetadataValueChars,
    });
    const timeout = resolveCanaryTimeout(flags.timeout, io.env);
    if (!flags.canaryModel || flags.canaryModel.trim() === "") throw new UsageError("--canary-model must not be empty");
    if (flags.canary) validateServiceUrl(flags.ollamaUrl, "--ollama-url");
    // The canary's context window is set once for the whole run to what a segment needs
    // (decision 7: Ollama reloads the model whenever num_ctx changes).
    const numCtx = requiredCanaryContext({ segmentChars: policy.segment_chars, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 });
    const pipeline = new SecurityPipeline({
      mode: flags.mode,
      canaryModel: flags.canaryModel,
      ollamaUrl: flags.ollamaUrl,
      canaryTimeout: timeout,
      enableCanary: flags.canary,
      ...(flags.canary ? { canaryNumCtx: numCtx } : {}),
    });
    // The locks on the manifest and export paths are held from here to the end of publication,
    // so a second run on the same paths cannot check, delete or link in between. Step 1 is repeated under
    // the lock: only answers given while holding it are final.
    lock = await lockTargets(targets, flags.waitLock ?? 0, controller.signal);
    await preflightTargets(targets);
    stopIfInterrupted();
    // 3. With --overwrite the previous pair goes now: from here on, a failure leaves no pair,
    //    never an old pair that looks current.
    if (targets.overwrite) await removePreviousPair(targets, fs);
    await checkTargetDirectories(targets);
    if (!flags.canary) {
      await writeOut(io.stderr, "warning: canary disabled (--no-canary): only the structural layer runs, so no record can be admitted\n");
    }

    if (input === "-") await hintIfTerminalStdin(io, "JSONL records", "pass FILE");
    const source = input === "-" ? fromNodeStream(io.stdin) : fromFile(targets.inputPath as string);
    const read = await readRecords(source, { kind: "ingest", limits: readerLimitsForPolicy(policy) }).catch((error: unknown) => {
      stopIfInterrupted();
      throw error;
    });
    stopIfInterrupted();
    if (!read.ok) throw new IngestRefusedError(`${read.refusal.message}; nothing written`);
    if (read.records.length === 0) throw new IngestRefusedError("no records in input; nothing written");

    const running = ingestRecords(pipeline, read.records, {
      policy,
      concurrency: flags.concurrency,
      exportRequested: targets.exportPath !== null,
      inputSha256: read.inputSha256,
      signal: controller.signal,
      onProgress: (done, total) => progress.update(done, total),
      maxCanaryFailures: flags.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES,
      uniqueIds: flags.uniqueIds === true,
    });
    // A check in flight can take minutes on a CPU canary; an interrupt answers now, and the
    // abandoned run's late outcome is dropped.
    running.catch(() => undefined);
    const run = await Promise.race([running, aborted(controller.signal)]);
    progress.finish();
    stopIfInterrupted();
    for (const warning of ingestRunWarnings(run, canaryTarget(pipeline), flags.uniqueIds === true)) await writeOut(io.stderr, warning);
    // The previous pair (with --overwrite) was removed under this same lock, so anything at a
    // target now was put there by someone else during the run: publish never replaces it.
    const published = await publish(
      { manifest: run.manifest, export: run.export },
      { manifestPath: targets.manifestPath, exportPath: targets.exportPath, overwrite: false },
      { fs, lock, signal: controller.signal, log: (message) => io.stderr.write(`warning: ${message}\n`) },
    );
    if (controller.signal.aborted) {
      await writeOut(io.stderr, "warning: interrupted, but the publication had already committed: the pair below is complete\n");
    }
    const exitCode = ingestExitCode(run.manifest.document);
    await writeOut(io.stdout, flags.json ? `${run.manifest.json}\n` : formatIngestSummary(run.manifest.document, published, exitCode)).catch(
      (error: unknown) => {
        // The pair is published; only its summary did not reach the reader.
        throw error instanceof OutputClosedError ? error.withNote(`the pair was published: check it with little-canary verify --manifest ${published.manifestPath}`) : error;
      },
    );
    return exitCode;
  } finally {
    progress.finish();
    // The lock goes before the handler: an interrupt during the release is still handled, never
    // the default action that would kill the process with the lock left on disk.
    await lock?.release();
    unregister();
  }
}

/** Rejects with the signal's reason once it aborts (never resolves). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
