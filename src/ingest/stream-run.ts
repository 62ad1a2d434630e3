// The record runner, the second pass of every ingest run: the prepared records through the
// pipeline, `concurrency` at a time in a bounded window, each entry and export record appended in
// input order to a spool; then both documents framed (heads validated, SHA-256 from the spools,
// the export naming the manifest's digest). Memory holds the window's records, never the run's.
import { canonicalJson, canonicalObjectFrame } from "../core/canonical.js";
import { VERSION } from "../core/version.js";
import { RecordCounter } from "../documents/counts.js";
import { exportHead, exportRecordFor, finishedEntryText, manifestHead } from "../documents/manifest-build.js";
import type { ManifestVersion } from "../documents/manifest-v2.js";
import { recordDigests } from "../documents/material-hash.js";
import { planSegments } from "../documents/segment-plan.js";
import type { IngestPolicy } from "../documents/policy.js";
import type { ManifestShard } from "../documents/shard.js";
import { ExportRecordSchema, type ExportRecord, type ManifestRecord } from "../documents/schemas.js";
import { canaryTarget, type CanaryTarget } from "../pipeline/canary-warning.js";
import { canaryProfile, isGenuinePipeline } from "../pipeline/pipeline.js";
import { CanaryCircuitBreaker, type BreakerTrip } from "../pipeline/circuit-breaker.js";
import { mapOrderedStream } from "../pipeline/map-ordered.js";
import { frameDocument, type ArraySpool, type FramedDocument } from "../publish/framed-document.js";
import type { AdmitPassResult, PreparedLine } from "./admit-pass.js";
import type { RecordEntryCache } from "./record-cache.js";
import type { CheckingPipeline, GateResult } from "./gate.js";
import type { RecordIdIndex } from "./id-index.js";
import { checkRecord, pipelineInfo, type RunContext } from "./record-check.js";
import { entryFacts, RunTally, type EntryFacts, type IngestRunSummary } from "./run-summary.js";
import type { PrefetchedEntries, PrefetchedEntry } from "./record-prefetch.js";
import type { SegmentVerdictCache } from "./segment-cache.js";
import type { Allowlist } from "../documents/allowlist.js";
import { fanOutSignal } from "../core/fan-out-signal.js";

/** Options of `streamIngestRun`. */
export interface StreamRunOptions {
  readonly policy: IngestPolicy;
  readonly gate: GateResult;
  readonly concurrency: number;
  readonly maxCanaryFailures: number;
  /** Creates the spool of the manifest's records (an ArraySpool beside the target, or in memory); it is removed with the run. */
  readonly manifestSpool: () => Promise<ArraySpool>;
  /** The same for the export's records, or null for a manifest only. */
  readonly exportSpool: (() => Promise<ArraySpool>) | null;
  /** Id digests are looked up here (keys prefixed `digest:`), for counts.duplicate_ids. */
  readonly ids: RecordIdIndex;
  /** The manifest's timestamps: `started_at` read when the run starts, `finished_at` when its checks are over. */
  readonly clock: () => Date;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
  /** Hears the circuit breaker open, when it does (the run goes on without canary calls). */
  readonly onCircuitOpen?: (trip: BreakerTrip) => void;
  /** The verdict cache for this run's canary identity; its hits and misses go into run.cache. */
  readonly cache?: SegmentVerdictCache;
  /** Whole-record entries beside that cache: a record found there is taken; one whose verdicts are all cached is offered. */
  readonly records?: RecordEntryCache;
  /** Entries read ahead (record-prefetch.ts; with `records`) and the row id of the run's identity: those under it are taken. */
  readonly prefetched?: { readonly entries: PrefetchedEntries; readonly identity: number };
  /** Given each finished entry in input order with its 1-based input line (the CI reports); awaited. */
  readonly onEntry?: (entry: ManifestRecord, line: number) => Promise<void>;
  /** A sharded run's shard (run.shard) and the whole input's SHA-256 (run.input_sha256; the first pass hashed the range). */
  readonly shard?: { readonly shard: ManifestShard; readonly inputSha256: string };
  /** The allowlist (`--allow`) applied to each checked record, recorded as run.allowlist. */
  readonly allowlist?: Allowlist;
}

/** The record checks' context, with what only the record runner needs. */
interface StreamRunContext extends RunContext {
  readonly records?: RecordEntryCache;
  readonly exporting: boolean;
  /** The manifest version written (the first pass's): each entry's text is made once, in it, in its lane. */
  readonly manifestVersion: ManifestVersion;
}

/** A run's result: both documents framed (from their spools), the summary, the breaker. */
export interface StreamedRun {
  readonly summary: IngestRunSummary;
  readonly manifest: FramedDocument;
  readonly export: FramedDocument | null;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
  /** Where the canary calls went and what the model check saw; null for a pipeline this library did not build. */
  readonly canary: CanaryTarget | null;
  /** Deletes the spools behind both documents (after publication, or on failure). Never throws. */
  remove(): Promise<void>;
}

/** A finished record as the sink receives it: what it is counted by, its canonical text, what the export needs. */
interface FinishedLine {
  readonly facts: EntryFacts;
  /** The entry's canonical JSON in the manifest version written. */
  readonly json: string;
  /** The entry itself (parsed on demand when it came as prefetched text). */
  readonly entry: () => ManifestRecord;
  readonly checks: number;
  /** The record's export record when it is admitted and the run exports, else null. */
  readonly exported: ExportRecord | null;
  readonly line: number;
}

type PlannedLine = Exclude<PreparedLine, { held: string }>;

/** A prepared line with the entry prefetched for it, if any. */
interface LineToFinish {
  readonly line: PreparedLine;
  readonly prefetched: PrefetchedEntry | null;
}

const finished = (entry: ManifestRecord, json: string, checks: number, exported: ExportRecord | null, line: number): FinishedLine => ({
  facts: entryFacts(entry),
  json,
  entry: () => entry,
  checks,
  exported,
  line,
});

/** The prepared lines in order, each with its prefetched entry (taken in the same order). */
async function* withPrefetched(lines: AsyncIterable<PreparedLine>, prefetched: StreamRunOptions["prefetched"]): AsyncGenerator<LineToFinish> {
  for await (const line of lines) {
    const entry = prefetched === undefined || "held" in line ? null : await prefetched.entries.take(line.index, prefetched.identity);
    yield { line, prefetched: entry };
  }
}

/**
 * A stored entry (prefetched, or the record cache's) as the record's finished line, or null (a miss) when its export record
 * does not bind to the record's digests. Its v1 text is taken as stored; a v2 text is made from the entry, once.
 */
function storedLine(run: StreamRunContext, line: PlannedLine, stored: PrefetchedEntry, entry: () => ManifestRecord): FinishedLine | null {
  let exported: ExportRecord | null = null;
  if (run.exporting && stored.facts.admission === "admitted") {
    try {
      exported = exportRecordFor(entry(), line.record());
    } catch {
      return null;
    }
  }
  const json = run.manifestVersion === 1 ? stored.json : finishedEntryText(entry(), line.index, run.policy, run.manifestVersion);
  run.cache?.countHits(stored.segments);
  return { facts: stored.facts, json, entry, checks: 0, exported, line: line.line };
}

/** The record's stored whole entry (record-cache.ts) when it can stand for this record, else null. */
function reusedLine(run: StreamRunContext, line: PlannedLine): FinishedLine | null {
  const reused = line.lineSha256 === null ? null : (run.records?.lookup(line.lineSha256, line.index) ?? null);
  if (reused === null) return null;
  return storedLine(run, line, { facts: entryFacts(reused.entry), json: reused.json, segments: reused.segments }, () => reused.entry);
}

async function finishLine(run: StreamRunContext, { line, prefetched }: LineToFinish): Promise<FinishedLine> {
  if ("held" in line) return finished(line.entry, line.held, 0, null, line.line);
  // A prefetched entry is parsed only when needed.
  let parsed: ManifestRecord | null = null;
  const reused =
    (prefetched === null ? null : storedLine(run, line, prefetched, () => (parsed ??= JSON.parse(prefetched.json) as ManifestRecord))) ?? reusedLine(run, line);
  if (reused !== null) return reused;
  const snapshot = line.record();
  // The text's digest is one the entry needs anyway (memoized per snapshot); the plan reuses it.
  const prepared = { index: line.index, snapshot, plan: planSegments(snapshot, run.policy, { textSha256: recordDigests(snapshot).sha256 }) };
  const outcome = await checkRecord(run, prepared);
  if (run.records !== undefined && line.lineSha256 !== null) {
    // Built again from the cache alone: the entry a later run would make by reusing verdicts.
    const reusable = outcome.checks === 0 ? outcome.entry : ((await checkRecord(run, prepared, true))?.entry ?? null);
    if (reusable !== null) run.records.offer(line.lineSha256, reusable);
  }
  // Serialized here, once, in the lane, while other records wait on the canary.
  const json = finishedEntryText(outcome.entry, line.index, run.policy, run.manifestVersion);
  const exported = run.exporting && outcome.entry.admission === "admitted" ? exportRecordFor(outcome.entry, snapshot) : null;
  return finished(outcome.entry, json, outcome.checks, exported, line.line);
}

/** Runs the prepared records through `pipeline` and frames the documents; on failure the spools are removed first. */
export async function streamIngestRun(pipeline: CheckingPipeline, prepared: AdmitPassResult, options: StreamRunOptions): Promise<StreamedRun> {
  const startedAt = options.clock();
  const { policy, gate, ids } = options;
  const abort = options.signal ? fanOutSignal(options.signal) : null;
  const version = prepared.manifestVersion;
  const context: StreamRunContext = {
    manifestVersion: version,
    exporting: options.exportSpool !== null,
    ...(options.cache && options.records ? { records: options.records } : {}),
    pipeline,
    policy,
    profile: canaryProfile(pipeline),
    breaker: new CanaryCircuitBreaker(options.maxCanaryFailures, options.onCircuitOpen),
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.allowlist ? { allowlist: options.allowlist } : {}),
    ...(gate.beforeFirstCheck ? { beforeCheck: gate.beforeFirstCheck } : {}),
    ...(abort ? { signal: abort.signal } : {}),
  };
  const manifestItems = await options.manifestSpool();
  const exportItems = options.exportSpool === null ? null : await options.exportSpool();
  const remove = async (): Promise<void> => {
    await manifestItems.remove();
    await exportItems?.remove();
  };
  try {
    // The position of the record being counted: an id digest was seen before when an earlier
    // position first used it.
    let position = 0;
    // The earlier record whose id digest the record being counted repeats, as the counter decided
    // it: the summary's repeated ids are then counts.duplicate_ids, pair by pair.
    let repeats: number | null = null;
    const repeatsEarlier = (digest: string): boolean => {
      const first = ids.firstIndex(`digest:${digest}`, position);
      repeats = first === position ? null : first;
      return repeats !== null;
    };
    // When the first pass saw no id twice, no digest can repeat (see AdmitPassResult).
    const counter = new RecordCounter(prepared.idDigestsMayRepeat ? repeatsEarlier : () => false);
    const tally = new RunTally();
    let checks = 0;
    const total = prepared.records;
    // Each record in input order: counted, spooled, reported (CI reports, progress).
    const sink = async (done: FinishedLine, index: number): Promise<void> => {
      if (done.facts.index !== index) throw new RangeError(`record ${done.facts.index} arrived at position ${index}`);
      position = index;
      repeats = null;
      counter.add(done.facts);
      tally.observe(done.facts, done.line, repeats);
      checks += done.checks;
      await manifestItems.append(done.json);
      if (exportItems !== null && done.exported !== null) {
        await exportItems.append(canonicalJson(ExportRecordSchema, done.exported, ["records", exportItems.count]));
      }
      await options.onEntry?.(done.entry(), done.line);
      options.onProgress?.(index + 1, total);
    };
    const lines = withPrefetched(prepared.prepared.lines(), context.records === undefined ? undefined : options.prefetched);
    await mapOrderedStream(lines, (line) => finishLine(context, line), sink, {
      concurrency: options.concurrency,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // Taken before the documents are framed: the checks are over, what follows is publication.
    const canary = isGenuinePipeline(pipeline) ? canaryTarget(pipeline) : null;
    const head = manifestHead(
      {
        little_canary_version: VERSION,
        // `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, as the manifest schema's timestamps are.
        started_at: startedAt.toISOString(),
        finished_at: options.clock().toISOString(),
        pipeline: pipelineInfo(pipeline, gate),
        policy,
        checks_performed: checks,
        input_sha256: options.shard ? options.shard.inputSha256 : prepared.inputSha256,
        export_requested: exportItems !== null,
        ...(options.cache ? { cache: { hits: options.cache.hits, misses: options.cache.misses } } : {}),
        ...(options.shard ? { shard: options.shard.shard } : {}),
        ...(options.allowlist ? { allowlist: { sha256: options.allowlist.sha256, entries: options.allowlist.entries.length } } : {}),
      },
      manifestItems.count,
      counter.counts(),
      version,
    );
    await manifestItems.seal();
    const manifest = await frameDocument(canonicalObjectFrame(head, "records"), manifestItems);
    let exported: FramedDocument | null = null;
    if (exportItems !== null) {
      await exportItems.seal();
      exported = await frameDocument(canonicalObjectFrame(exportHead(manifest.sha256, version), "records"), exportItems);
    }
    return { summary: tally.summary(head), manifest, export: exported, circuitOpen: context.breaker.trip, canary, remove };
  } catch (error) {
    await remove();
    throw error;
  } finally {
    abort?.release();
  }
}
