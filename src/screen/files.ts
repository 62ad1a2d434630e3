// `screenFile`: a JSONL batch from a file (or stream) screened as one library call, the work
// behind `little-canary screen`, in memory bounded by the concurrency, never by the batch's size.
// 1. The whole input is read strictly, keeping only its size and SHA-256 (a stream is copied to
//    a scratch file, since it cannot be read twice); a refused batch throws before any check.
// 2. It is read again and its items fed to the one screen path (screen-batch.ts), each finished
//    item spooled; the second read must hash to the first's: what was admitted is what was checked.
// 3. The document is framed around the spooled items and copied to `output`: the same bytes as
//    the in-memory `serializeBatch(screenBatch(…))`. Scratch files are removed whatever happens.
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { canonicalJson, canonicalObjectFrame } from "../core/canonical.js";
import { concurrencyOption, isPlainObject, itemCacheOption, refuseUnknownOptions } from "../core/guards.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { orAbort } from "../core/or-abort.js";
import { specialFileKind } from "../core/file-identity.js";
import { refuseInputKind } from "../jsonl/input-kind.js";
import { cacheNotOpened, canaryOff, pipelineIdentity, type CacheIdentity } from "../cache/identity.js";
import { VerdictCache } from "../cache/verdict-cache.js";
import { knownModelDigest } from "../canary/identity.js";
import { readerLimitsOption, type ReaderLimits } from "../documents/reader-limits.js";
import { BatchDocumentSchema, BatchItemSchema, type BatchItem } from "../documents/schemas.js";
import { VerdictJsonSchema, type VerdictJson } from "../documents/verdict-schema.js";
import { type ReadOptions, recordBatches, refusalInInput, type ScanOutcome, scanRecords } from "../jsonl/read.js";
import type { RawRecord } from "../jsonl/record.js";
import { fromFile, fromNodeStream } from "../jsonl/sources.js";
import { isGenuinePipeline, type SecurityPipeline } from "../pipeline/pipeline.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import { CanaryCircuitBreaker, DEFAULT_MAX_CANARY_FAILURES, type BreakerTrip } from "../pipeline/circuit-breaker.js";
import { ArraySpool, frameDocument } from "../publish/framed-document.js";
import { ScratchFile } from "../publish/scratch-file.js";
import { itemFromRecord, type ScreenItem } from "./admit.js";
import type { CheckedItem, ItemVerdictCache } from "./check-item.js";
import { batchStateOfJson } from "./batch-state.js";
import { screenStream, type BatchSummary } from "./screen-batch.js";
import { displayText } from "../core/display-text.js";

/** The batch input was refused (a reader limit, a malformed record) or the run was interrupted. */
export class InputRefusedError extends LittleCanaryError {
  override readonly name = "InputRefusedError";
  constructor(message: string) {
    super("input_refused", message);
  }
}

/** Options of `screenFile`. */
export interface ScreenFileOptions {
  /** The JSONL input: a path (resolved against `cwd`) or a stream. */
  readonly input: string | Readable;
  /**
   * The pipeline, or a function that builds it once the limits are valid (so a bad limit is
   * reported before a bad pipeline setting, as the CLI does).
   */
  readonly pipeline: Pick<SecurityPipeline, "check"> | (() => Pick<SecurityPipeline, "check">);
  /**
   * Receives the batch document's bytes in order (its canonical JSON, no trailing newline),
   * once every item is checked; each call is awaited, so a slow reader slows the copy.
   */
  readonly output: (chunk: Uint8Array) => Promise<void>;
  /** Reader limits over the defaults (most items, bytes of one text, bytes of all texts…); 0 for `maxItems` or `maxTotalBytes` is no limit. */
  readonly limits?: Partial<ReaderLimits>;
  /** Items checked at once (default 1); the document is the same for any value. */
  readonly concurrency?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5; 0 never). */
  readonly maxCanaryFailures?: number;
  /**
   * Directory of the scratch files (the copy of a stream input, the spooled items), resolved
   * against `cwd`. Default: the OS temporary directory (`os.tmpdir()`, which honours TMPDIR).
   */
  readonly scratchDir?: string;
  /** A verdict cache around each item's check (see check-item.ts); none by default. */
  readonly cache?: ItemVerdictCache;
  /**
   * A verdict cache file (resolved against `cwd`, created if missing; `screen --cache`): opened
   * before the input is read, used under the pipeline's canary identity (screenItemCache). Not
   * together with `cache`.
   */
  readonly cacheFile?: string | null;
  /** Why a requested cache file is not used for this run (the run goes on without it). */
  readonly onCacheNote?: (message: string) => void;
  /** Aborting stops the reading or the screening and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Called once the settings are valid, just before the input is read. */
  readonly beforeRead?: () => void | Promise<void>;
  /** Called once the input is read and admitted, before the first check. */
  readonly afterRead?: (itemCount: number) => void | Promise<void>;
  /**
   * Called with each finished item, in input order, the 1-based input line it was read from
   * (blank lines count) and its parts' results (CheckedItem); awaited before the next item is taken.
   */
  readonly onItem?: (item: BatchItem, line: number, checked: CheckedItem) => Promise<void>;
  /** Called after each item, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Hears the circuit breaker open, when it does (the rest of the items are not sent to the canary). */
  readonly onCircuitOpen?: (trip: BreakerTrip) => void;
  /** Called once every item is checked, just before the document is copied to `output`. */
  readonly beforeOutput?: (summary: BatchSummary, circuitOpen: BreakerTrip | null) => void | Promise<void>;
  /** Directory a relative input path is resolved against (default: the process's). */
  readonly cwd?: string;
}

/** What `screenFile` wrote, in numbers. */
export interface ScreenFileResult {
  /** The document's total and counts, and the facts of its canary warning. */
  readonly summary: BatchSummary;
  /** Set when the circuit breaker opened part-way: the rest of the items were not sent. */
  readonly circuitOpen: BreakerTrip | null;
  /** SHA-256 (hex) of the document's bytes as written to `output`. */
  readonly sha256: string;
  /** Bytes written to `output`. */
  readonly size: number;
}

/** The members of a batch document other than its items, checked on their own. */
const BatchRestSchema = BatchDocumentSchema.omit({ items: true });

/** The scratch files of one run are named after this, in the scratch directory. */
const SCRATCH_NAME = "little-canary-screen";

/** `source`, ending with the signal's reason as soon as it aborts, even while a read waits. */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      // Never a read begun after the abort.
      if (signal?.aborted) throw signal.reason;
      const next = await orAbort(iterator.next(), signal);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // A read still waiting (a terminal) is not awaited: the source is closed once it returns.
    if (signal?.aborted) void iterator.return?.()?.catch(() => undefined);
    else await iterator.return?.();
  }
}

/** `source`, each chunk appended to `copy` before it is passed on. */
async function* copiedTo(source: AsyncIterable<Uint8Array>, copy: ScratchFile): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    await copy.append(chunk);
    yield chunk;
  }
}

/**
 * `source`, refused as a changed input as soon as it brings more bytes than the first read did:
 * a file that grew between the reads must not have its new items checked before the digest
 * comparison refuses it.
 */
async function* atMost(source: AsyncIterable<Uint8Array>, bytes: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.byteLength;
    if (seen > bytes) throw changedInput();
    yield chunk;
  }
}

/**
 * The items of the second read; each one's input line is queued on `lines` as it is taken. A
 * record problem now (the first read found none), or a read that ends unlike the first, refuses
 * the input as changed.
 */
async function* itemsOf(read: AsyncGenerator<RawRecord[], ScanOutcome, undefined>, first: ScanOutcome, lines: number[]): AsyncGenerator<ScreenItem> {
  let step = await read.next();
  try {
    for (; step.done !== true; step = await read.next()) {
      for (const record of step.value) {
        if (record.problems.length > 0) throw changedInput();
        lines.push(record.line);
        yield itemFromRecord(record);
      }
    }
  } finally {
    // A consumer that stops early (a failure, an abort) stops the read and closes its source.
    if (step.done !== true) await read.return(undefined as never);
  }
  const again = step.value;
  if (!again.ok || !first.ok || again.inputSha256 !== first.inputSha256 || again.bytesRead !== first.bytesRead) throw changedInput();
}

const changedInput = (): InputRefusedError =>
  new InputRefusedError("the input changed while it was being screened (its second read differs from the first); nothing printed");

/** True when the canary and the analysis both ran for this verdict and its coverage held. */
function exercised(verdict: VerdictJson): boolean {
  return !verdict.degraded && verdict.canary_status === "exercised" && verdict.analysis_status === "exercised";
}

/**
 * An ItemVerdictCache over `store` under `identity` (`screen --cache PATH`), with scope
 * `screen_item` (never confused with an ingest segment). A stored value is a miss unless its
 * verdict matches the schema, gives again the state it was stored with, and had canary and
 * analysis run. A reused item says so (`reused`, `checked_at`).
 */
function screenItemCache(store: VerdictCache, identity: CacheIdentity): ItemVerdictCache {
  return {
    lookup(sha256): BatchItem | null {
      const stored = store.get(sha256, identity.key);
      if (stored === null) return null;
      const value = stored.value;
      const length = isPlainObject(value) ? value["length"] : undefined;
      const parsed = VerdictJsonSchema.safeParse(isPlainObject(value) ? value["verdict"] : undefined);
      if (!parsed.success || typeof length !== "number" || !exercised(parsed.data) || batchStateOfJson(parsed.data) !== stored.state) return null;
      return { index: 0, id: null, source: null, sha256, length, state: stored.state, verdict: parsed.data, reused: true, checked_at: stored.checkedAt };
    },
    store(sha256, item) {
      if (item.verdict === undefined || !exercised(item.verdict) || item.reused === true) return;
      store.put({ textSha256: sha256, identity, state: item.state, exercised: true, value: { verdict: item.verdict, length: item.length } });
    },
  };
}

/** Every option screenFile takes; `satisfies` keeps the list equal to the interface. */
const SCREEN_FILE_OPTION_KEYS = Object.keys({
  input: true,
  pipeline: true,
  output: true,
  limits: true,
  concurrency: true,
  maxCanaryFailures: true,
  scratchDir: true,
  cache: true,
  cacheFile: true,
  onCacheNote: true,
  signal: true,
  beforeRead: true,
  afterRead: true,
  onItem: true,
  onProgress: true,
  onCircuitOpen: true,
  beforeOutput: true,
  cwd: true,
} satisfies Record<keyof ScreenFileOptions, true>);

/** Reads, admits and screens a JSONL batch and writes its document; throws InputRefusedError when the input is refused. */
export async function screenFile(options: ScreenFileOptions): Promise<ScreenFileResult> {
  refuseUnknownOptions("screenFile", options, SCREEN_FILE_OPTION_KEYS);
  // The document goes only to `output`: without one it would be screened and thrown away.
  if (typeof options.output !== "function") throw new UsageError("screenFile needs output, a function that takes each chunk of the batch document");
  // The CLI passes its flags here, so a limit is named as its flag.
  const limits: ReaderLimits = readerLimitsOption("screenFile", options.limits, "flag");
  const concurrency = concurrencyOption("screenFile", options.concurrency);
  const pipeline = typeof options.pipeline === "function" ? options.pipeline() : options.pipeline;
  const cwd = options.cwd ?? process.cwd();
  if (itemCacheOption("screenFile", options.cache) !== undefined && options.cacheFile != null) throw new UsageError("give a cache or a cache file, not both");
  const inputPath = typeof options.input === "string" ? resolve(cwd, options.input) : null;
  // A path that does not exist or is a directory is refused in ingest's words, before any file is opened.
  if (inputPath !== null) await refuseInputKind(options.input as string, inputPath, false);
  // Opened before anything is read, so a file that is not a verdict cache refuses the run now;
  // not opened at all when the canary is off (nothing checked could be stored).
  const unused = options.cacheFile == null ? null : cacheNotOpened(resolve(cwd, options.cacheFile), !canaryOff(pipeline));
  if (unused !== null) options.onCacheNote?.(unused);
  const store = options.cacheFile == null || unused !== null ? null : VerdictCache.open(resolve(cwd, options.cacheFile));
  const scratchDir = resolve(cwd, options.scratchDir ?? tmpdir());
  // Named with its flag before anything is read, rather than by the first scratch file it refuses.
  if (options.scratchDir !== undefined && !(await stat(scratchDir).catch(() => null))?.isDirectory()) {
    throw new UsageError(`--scratch-dir is not a directory that exists: ${displayText(scratchDir)}`);
  }
  const scratchTarget = join(scratchDir, SCRATCH_NAME);
  const { signal } = options;
  const read: ReadOptions = { kind: "screen", limits, stopOnRecordProblem: true };
  let copy: ScratchFile | null = null;
  let items: ArraySpool | null = null;
  try {
    await options.beforeRead?.();
    // First pass: validation only.
    let source: AsyncIterable<Uint8Array>;
    // A named pipe or a device given by path (`<(cmd)`, `/dev/stdin`) can be read only once.
    if (inputPath !== null && (await specialFileKind(inputPath, { follow: true })) === null) source = fromFile(inputPath, signal);
    else {
      // Standard input, or such a path: the second pass reads the copy made during the first.
      copy = await ScratchFile.create(scratchTarget, "input");
      source = copiedTo(inputPath !== null ? fromFile(inputPath, signal) : fromNodeStream(options.input as Readable), copy);
    }
    const first = await scanRecords(untilAborted(source, signal), read, () => undefined);
    if (!first.ok) throw new InputRefusedError(refusalInInput(first.refusal.message, inputPath));
    await copy?.seal();
    await options.afterRead?.(first.records);
    // Before the first check: a canary pool is pinned to one identity, and an OpenAI-compatible
    // canary server must hold a whole window.
    const served = await orAbort(preflightCanary(pipeline), signal);

    // Second pass: the checks, each finished item spooled in order.
    items = await ArraySpool.create(scratchTarget, "items");
    const spool = items;
    const breaker = new CanaryCircuitBreaker(options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES, options.onCircuitOpen);
    let cache = options.cache;
    if (store !== null) {
      const modelDigest = await knownModelDigest(isGenuinePipeline(pipeline) ? pipeline.probe : null).catch(() => null);
      const identity = pipelineIdentity(pipeline, { scope: "screen_item", modelDigest, server: served });
      if (identity.ok) cache = screenItemCache(store, identity);
      else options.onCacheNote?.(`the verdict cache ${displayText(store.path)} is not used for this run: ${identity.reason}`);
    }
    const again = copy !== null ? copy.chunks() : fromFile(inputPath as string, signal);
    const records = recordBatches(atMost(untilAborted(again, signal), first.bytesRead), read);
    const total = first.records;
    // The lines of the items taken and not yet finished: at most the concurrency window.
    const lines: number[] = [];
    const onProgress = options.onProgress;
    const tally = await screenStream(
      itemsOf(records, first, lines),
      { pipeline, concurrency, breaker, cache, signal, onProgress: onProgress && ((done) => onProgress(done, total)) },
      async (item, index, checked) => {
        await spool.append(canonicalJson(BatchItemSchema, item, ["items", index]));
        await options.onItem?.(item, lines.shift() as number, checked);
      },
    );
    await spool.seal();

    // The document: its counts and total framed around the spooled items.
    const rest = tally.rest();
    canonicalJson(BatchRestSchema, rest);
    const document = await frameDocument(canonicalObjectFrame(rest, "items"), spool);
    const summary = tally.summary();
    await options.beforeOutput?.(summary, breaker.trip);
    await document.writeTo(options.output);
    return { summary, circuitOpen: breaker.trip, sha256: document.sha256, size: document.size };
  } finally {
    await items?.remove();
    await copy?.remove();
    store?.close();
  }
}
