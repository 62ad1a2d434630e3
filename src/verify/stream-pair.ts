// Walks the manifest and the export file in lockstep: each up to its records, then each export
// record together with the manifest records up to its index, then the rest of both. Only the
// record being checked on each side is held; verify-stream.ts assembles the problems. A large
// pair read canonically is walked on this thread, which hands a share of the records to a worker
// (pair-worker.ts, share-feed.ts) walking them in the same lockstep, each checking its share
// (pair-share.ts), and the worker's findings are merged.
import { MAX_DOCUMENT_VALUES, EXPORT_SHAPE, fileReasonWords, refusalReason, type DocumentLabel } from "../core/read-document.js";
import { ANY_SHAPE, StrictStreamError, type Shape, type StreamBudget, type StrictStreamEvent } from "../core/parse-line.js";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { PAIR_WORKER_LIMITS, takeStartedPairWorker } from "./pair-worker-start.js";
import { canonicalElementReader, NotCanonicalLayout, readCanonicalJsonFile, type DeferredElement, type ElementShare } from "../core/canonical-json-file.js";
import { FEED_LIMITS, type FedDocuments, ShareFeed, type FeedLimits, type FeedMessage, type FeedTaken } from "./share-feed.js";
import type { StringLeftAsBytes } from "../core/parse-line.js";
import { readStrictJsonFile, StrictFileError, type StrictFileEnd } from "../core/strict-json-stream.js";
import { MAX_ITEM_BYTES_CEILING, MAX_TEXT_JSON_BYTES } from "../documents/reader-limits.js";
import { isObj, type Obj } from "./_values.js";
import type { VerifyProblem } from "./problems.js";
import { exportIndexHint, exportShare, manifestShare, newClaims, type PairShare } from "./pair-share.js";
import { newBucketKey, type IdDigestOptions } from "./id-digests.js";
import { assembleProblems, headOf, RECORDS_KEY, StreamedExport, StreamedManifest, type ExportShareState, type ManifestShareState } from "./verify-stream.js";
import { displayText } from "../core/display-text.js";

/**
 * What one streamed record may hold: the characters (of strings, keys and numbers) of the largest
 * input item any policy allows (its `max_item_bytes` ceiling; a character takes at least one
 * byte) plus 1 MiB for its fields, and the values of the whole-document budget. A genuine record's
 * values grow with its policy (some 10 to 70 a segment, and `max_segments` has no ceiling), so a
 * lower cap would refuse pairs ingest wrote; what a record of that many values costs is in
 * docs/ingest.md, "Verify memory".
 */
const RECORD_BUDGET = { maxValues: MAX_DOCUMENT_VALUES, maxChars: MAX_ITEM_BYTES_CEILING + 1024 * 1024 };
/**
 * What the rest of a document (everything but its `records`) may hold: ingest writes fewer than
 * 200 values and a few kilobytes there. The manifest's is built whole and held while every record
 * is read; of the export's, only the members the export format has are built (the others are
 * checked and counted, not built: docs/ingest.md), so its count costs no memory.
 */
const REST_BUDGETS: Readonly<Record<PairDocument, StreamBudget>> = {
  manifest: { maxValues: 10_000, maxChars: 1024 * 1024 },
  export: { maxValues: MAX_DOCUMENT_VALUES, maxChars: 1024 * 1024 },
};

/** The two documents of a pair, the ones streamed here. */
type PairDocument = Exclude<DocumentLabel, "index">;
/**
 * The longest string, key or number read, in bytes as written: the JSON string of the largest
 * text any policy admits, escaped at worst (a control character takes six bytes), plus 1 MiB.
 * Counting the characters alone would refuse an export ingest wrote, whose text of quotes, line
 * breaks or control characters is longer escaped than the budget its characters are held to.
 */
const MAX_TOKEN_BYTES = MAX_TEXT_JSON_BYTES + 1024 * 1024;
const EXPORT_RECORD_SHAPE = EXPORT_SHAPE.object?.fields?.get(RECORDS_KEY)?.array?.items as Shape;

/**
 * How the files are read: "canonical" splits a file laid out as ingest writes it without the
 * token walker (core/canonical-json-file.ts) and gives up ("exact" is then returned) on one that
 * is not; "exact" walks every byte with the strict grammar. Both give the same values.
 */
export type PairReader = "canonical" | "exact";

/** What verifying a pair's files found, streamed or read whole (verify-files.ts). */
export interface PairReading {
  /** `manifest_unreadable` / `export_unreadable`; when there is one, `problems` is empty. */
  readonly readProblems: VerifyProblem[];
  readonly manifestSha256: string | null;
  /** SHA-256 of the export file's bytes as read, when it was read to its end. */
  readonly exportSha256: string | null;
  /** The manifest's members other than `records`, when it was read to its end and is an object. */
  readonly manifestHead: Obj | null;
  /** The export's members other than `records`, likewise (null without an export). */
  readonly exportHead: Obj | null;
  readonly problems: VerifyProblem[];
  /** Records read as clean pairs from their bytes (clean-pair.ts): 0 when read otherwise. */
  readonly cleanPairs: number;
}

function readReason(error: unknown, label: PairDocument): string {
  if (error instanceof StrictFileError) return fileReasonWords(error);
  if (!(error instanceof StrictStreamError)) return "unreadable";
  const [budget, where] = error.inElement ? [RECORD_BUDGET, " in one record"] : [REST_BUDGETS[label], " outside the records"];
  if (error.code !== "too_many_chars") return refusalReason(error.code, budget.maxValues, error.code === "too_many_values" ? where : "");
  return error.message.startsWith("a string")
    ? `a string, key or number longer than ${MAX_TOKEN_BYTES} bytes, the most verify holds`
    : `more than ${budget.maxChars} characters${where}, the most verify holds`;
}

/** A record as read: its value, its position, and (canonical reading) its bytes and a text left as bytes. */
interface RecordRead {
  readonly value: unknown;
  readonly index: number;
  readonly bytes: Buffer | undefined;
  readonly left: StringLeftAsBytes | undefined;
}

/**
 * How a walk reads the pair: the reader, the read size, who hears of the bytes read, whether the
 * export is hashed (the canonical reader skips an export hash nobody asked for: a plain verify
 * needs none, and it was about a tenth of its time on a large pair), and, on the worker, what it
 * is handed instead of the files (share-feed.ts).
 */
export interface PairRead {
  readonly reader: PairReader;
  readonly chunkBytes: number | undefined;
  readonly onChunk?: ((bytes: number) => void) | undefined;
  readonly hashExport: boolean;
  readonly fed?: FedDocuments | undefined;
}

/** One document being walked: pulls events, remembers the end and a read failure. */
class Walk {
  private readonly events: AsyncGenerator<StrictStreamEvent | DeferredElement | StrictFileEnd, void, void>;
  end: StrictFileEnd | null = null;
  failure: VerifyProblem | null = null;
  /** The fast reader met bytes it does not read (canonical reading only): read the pair exactly. */
  notCanonical = false;
  /** Members before the records array, once it started. */
  members: Obj | null = null;
  /** Elements of the records array, once it ended (a share is yielded only its own). */
  elements: number | null = null;
  private inRecords = false;

  constructor(
    private readonly path: string,
    private readonly label: PairDocument,
    shape: Shape,
    elementShape: Shape,
    { reader, chunkBytes, onChunk, fed, hashExport }: PairRead,
    share: ElementShare | undefined,
  ) {
    const options = {
      shape,
      stream: new Map([[RECORDS_KEY, elementShape]]),
      rest: REST_BUDGETS[label],
      element: RECORD_BUDGET,
      maxTokenBytes: MAX_TOKEN_BYTES,
      ...(chunkBytes === undefined ? {} : { chunkBytes }),
      ...(onChunk === undefined ? {} : { onChunk }),
    };
    // An export record's text (most of its bytes) is left as bytes: verify hashes and measures it there.
    // Each record comes unparsed: walkPair reads a clean pair from its bytes (clean-pair.ts) and parses the rest.
    const fast = {
      ...options,
      deferElements: true,
      // The manifest is always hashed (its pin, and the export's binding to it).
      hash: label === "manifest" || hashExport,
      ...(share === undefined ? {} : { share }),
      ...(label === "export" ? { leaveString: "text" } : {}),
    };
    // Handed its elements by the thread that read the file, a worker reads them as that reader would.
    if (fed !== undefined) this.events = fed.events(label, canonicalElementReader(fast));
    else this.events = reader === "canonical" ? readCanonicalJsonFile(path, fast) : readStrictJsonFile(path, options);
  }

  private async pull(): Promise<StrictStreamEvent | DeferredElement | StrictFileEnd | null> {
    if (this.end !== null || this.failure !== null || this.notCanonical) return null;
    try {
      const next = await this.events.next();
      if (next.done) return null;
      if (next.value.type === "end") this.end = next.value;
      return next.value;
    } catch (error) {
      if (error instanceof NotCanonicalLayout) {
        this.notCanonical = true;
        return null;
      }
      this.failure = {
        code: this.label === "manifest" ? "manifest_unreadable" : "export_unreadable",
        message: `cannot read ${this.label} ${displayText(this.path)} (${readReason(error, this.label)})`,
      };
      return null;
    }
  }

  /** Reads until the records array starts or the document ends. */
  async toRecords(): Promise<void> {
    while (!this.inRecords) {
      const event = await this.pull();
      if (event === null) return;
      if (event.type === "array_start") {
        this.members = event.members as Obj;
        this.inRecords = true;
      }
    }
  }

  /** The next record, parsed, or null once the records array (or the document, or reading) ended. */
  async nextRecord(): Promise<RecordRead | null> {
    const next = await this.nextElement();
    return next?.type === "deferred" ? this.parse(next) : next;
  }

  /**
   * The next record, unparsed when the canonical reader split it (parse it with `parse` before
   * this walk is pulled again), or null once the records array (or the document, or reading) ended.
   */
  async nextElement(): Promise<(RecordRead & { readonly type: "element" }) | DeferredElement | null> {
    while (this.inRecords) {
      const event = await this.pull();
      if (event === null) return null;
      if (event.type === "deferred") return event;
      if (event.type === "element") return { type: "element", value: event.value, index: event.index, bytes: event.bytes, left: event.left };
      if (event.type === "array_end") {
        this.inRecords = false;
        this.elements = event.count;
      }
    }
    return null;
  }

  /** A deferred record parsed, or null when its bytes are not canonical (the pair is then read exactly). */
  parse(element: DeferredElement): RecordRead | null {
    try {
      const event = element.parse();
      if (event.type !== "element") return null;
      return { value: event.value, index: event.index, bytes: event.bytes, left: event.left };
    } catch (error) {
      if (!(error instanceof NotCanonicalLayout)) throw error;
      this.notCanonical = true;
      return null;
    }
  }

  /** Reads to the end (every byte is still checked). */
  async finish(): Promise<void> {
    while ((await this.pull()) !== null) {
      // Nothing to keep: a failure or the end is recorded by pull.
    }
  }

  /** Stops reading early (the file is closed). */
  async stop(): Promise<void> {
    await this.events.return();
  }
}

/** The two documents walked and the verifier's state: what `readingOf` assembles. */
interface PairWalk {
  readonly m: Walk;
  readonly e: Walk | null;
  readonly manifest: StreamedManifest;
  readonly exported: StreamedExport;
}

/**
 * Walks the manifest (and export, when given) and checks their records, or only `share`'s part
 * of them (pair-share.ts; canonical reading only), read from the files or, on the worker, from
 * what the reading thread handed on (`fed`). "reread" when the pair needs the whole documents,
 * "exact" when the canonical `reader` met bytes it does not read. Never throws for any file
 * content; an unreadable file is a read failure of its walk.
 */
async function walkPair(
  manifestPath: string,
  exportPath: string | null,
  read: PairRead,
  share?: PairShare,
  ids?: IdDigestOptions,
): Promise<PairWalk | "reread" | "exact"> {
  const { reader } = read;
  const m = new Walk(manifestPath, "manifest", ANY_SHAPE, ANY_SHAPE, read, share && manifestShare(share));
  const e = exportPath === null ? null : new Walk(exportPath, "export", EXPORT_SHAPE, EXPORT_RECORD_SHAPE, read, share && exportShare(share));
  // Read canonically, the manifest's bytes are its canonical form: their SHA-256 is its canonical one.
  const manifest = new StreamedManifest(false, reader === "canonical", ids);
  const exported = new StreamedExport();
  try {
    await m.toRecords();
    if (m.members !== null) manifest.begin(m.members);
    let nextManifest = 0;
    if (e !== null) {
      await e.toRecords();
      exported.streamed = e.members !== null;
      for (;;) {
        const element = await e.nextElement();
        if (element === null) break;
        // Unparsed, the index is read from the record's first bytes; a record that does not begin
        // as a canonical one does is parsed at once.
        const hinted = element.type === "deferred" ? exportIndexHint(element.bytes) : null;
        let item = element.type === "element" ? element : hinted === null ? e.parse(element) : null;
        if (item === null && hinted === null) break;
        const index = item === null ? exported.indexAt(hinted as number, element.index) : exported.indexOf(item.value, item.index);
        if (index === null) continue;
        if (exported.outOfOrder) {
          // Duplicates and order need the whole lists: the pair is read whole and checked held.
          await Promise.all([m.stop(), e.stop()]);
          manifest.close();
          return m.notCanonical || e.notCanonical ? "exact" : "reread";
        }
        let target: Obj | undefined;
        let clean = false;
        while (nextManifest <= index) {
          const next = await m.nextElement();
          if (next === null) break;
          nextManifest = next.index + 1;
          // A clean pair read from its bytes has nothing to report: the export record's check is done too.
          if (next.index === index && item === null && next.type === "deferred" && manifest.cleanPair(next.bytes, (element as DeferredElement).bytes, index)) {
            clean = true;
            continue;
          }
          const record = next.type === "deferred" ? m.parse(next) : next;
          if (record === null) break;
          const usable = manifest.record(record.value, record.index);
          exported.passed(record.index, usable, index);
          if (record.index === index && usable !== null) target = usable;
        }
        if (clean) continue;
        // The record's bytes are still valid: only the manifest's reader was pulled since.
        item ??= e.parse(element as DeferredElement);
        if (item === null) break;
        // Without streamed manifest records there is no target, so the geometry is not needed.
        exported.record(item.value as Obj, index, target, manifest.geometry, manifest.verdictsAgree(target), item.bytes, item.left);
      }
    }
    for (;;) {
      const record = await m.nextRecord();
      if (record === null) break;
      exported.passed(record.index, manifest.record(record.value, record.index), null);
    }
    await m.finish();
    if (e !== null) await e.finish();
  } finally {
    await m.stop();
    if (e !== null) await e.stop();
  }
  if (m.notCanonical || e?.notCanonical === true) {
    manifest.close();
    return "exact";
  }
  // A share saw only its records: the lists' lengths are the arrays' own.
  if (m.elements !== null) manifest.count = m.elements;
  if (e?.elements != null) exported.count = e.elements;
  return { m, e, manifest, exported };
}

/** The problems of a walked pair, or "reread" when a manifest member that sorts before `records` came after it. */
function readingOf({ m, e, manifest, exported }: PairWalk): PairReading | "reread" {
  const readProblems = [m.failure, e?.failure ?? null].filter((p): p is VerifyProblem => p !== null);
  const manifestSha256 = m.end?.sha256 ?? null;
  const exportSha256 = e?.end?.sha256 ?? null;
  const manifestHead = headOf(m.end?.value);
  const exportHead = headOf(e?.end?.value);
  const cleanPairs = manifest.cleanPairs;
  if (readProblems.length > 0 || m.end === null) return { readProblems, manifestSha256, exportSha256, manifestHead, exportHead, problems: [], cleanPairs };
  const manifestRoot = m.end.value;
  // The manifest is always hashed (its pin, and the export's binding to it).
  const facts = isObj(manifestRoot) ? manifest.facts(manifestRoot, m.end.sha256 as string) : { canonicalSha: null, issuePath: null };
  if (facts === "reread") return "reread";
  const problems = assembleProblems(e?.end?.value, manifestRoot, facts, manifestSha256, manifest, e?.end == null ? null : exported);
  return { readProblems, manifestSha256, exportSha256, manifestHead, exportHead, problems, cleanPairs };
}

/**
 * Streams the manifest (and export, when given) and checks them, or "reread" when the pair needs
 * the whole documents, or "exact" when the canonical reader met bytes it does not read. Never
 * throws for any file content; an unreadable file is a read problem.
 */
export async function streamPair(
  manifestPath: string,
  exportPath: string | null,
  read: PairRead,
  other?: OtherShare | null,
): Promise<PairReading | "reread" | "exact"> {
  if (read.reader === "canonical" && other != null) return streamInShares(manifestPath, exportPath, read, other);
  const walk = await walkPair(manifestPath, exportPath, read);
  if (typeof walk === "string") return walk;
  try {
    return readingOf(walk);
  } finally {
    walk.manifest.close();
  }
}

/** What a share's walk found, for the thread that assembles the pair (posted by pair-worker.ts). */
export type ShareOutcome =
  | "reread"
  | "exact"
  | {
      readonly manifestSha256: string | null;
      readonly exportSha256: string | null;
      readonly failed: boolean;
      readonly manifest: ManifestShareState;
      readonly exported: ExportShareState;
    };

/**
 * Walks a pair canonically, checking only `share`'s records (pair-share.ts): read from the files,
 * or from what the reading thread hands on (`fed`, on the worker). The id digests' files (`ids`)
 * are left for the thread that absorbs the outcome.
 */
export async function walkShare(
  manifestPath: string,
  exportPath: string | null,
  chunkBytes: number | undefined,
  share: PairShare,
  ids: IdDigestOptions,
  fed?: FedDocuments,
): Promise<ShareOutcome> {
  // Read from the files, both are hashed: the thread that absorbs the outcome compares them.
  const walk = await walkPair(manifestPath, exportPath, { reader: "canonical", chunkBytes, hashExport: true, fed }, share, ids);
  if (typeof walk === "string") return walk;
  return {
    manifestSha256: walk.m.end?.sha256 ?? null,
    exportSha256: walk.e?.end?.sha256 ?? null,
    failed: walk.m.failure !== null || (walk.e?.failure ?? null) !== null,
    manifest: walk.manifest.shareState(),
    exported: walk.exported.shareState(),
  };
}

/**
 * Where the other share is checked: on a worker thread (`url`, pair-worker.ts) or, with null,
 * here after this one. For tests: `maxIdsInMemory`, id digests held before they go to disk;
 * `feedLimits`, how far the worker is handed ahead (share-feed.ts); `onSecondShare`, told where
 * the second share was checked in the end ("here" also when the worker failed or was stopped).
 */
export interface OtherShare {
  readonly url: URL | null;
  readonly block: number;
  readonly maxIdsInMemory?: number;
  readonly feedLimits?: FeedLimits;
  readonly onSecondShare?: (where: "worker" | "here") => void;
}

/**
 * streamPair's canonical reading on two threads (pair-share.ts, `other`): this one reads the files
 * and checks share 0 while a worker checks share 1, handed to it as it is read (share-feed.ts),
 * and the worker's findings are absorbed before the problems are assembled, in the order one
 * thread gives. A worker that fails, exits or is stopped is replaced by reading the pair again
 * here, or, when both files were hashed, by checking its share here from the files; two shares
 * that read different bytes give "exact" (the pair is read again).
 */
async function streamInShares(manifestPath: string, exportPath: string | null, read: PairRead, other: OtherShare): Promise<PairReading | "reread" | "exact"> {
  const { chunkBytes, hashExport } = read;
  // With a worker, this thread decides each block as it meets it and writes the decision down
  // (pair-share.ts); checked one after the other here, blocks alternate.
  const claims = other.url === null ? null : newClaims(await fileBytes(manifestPath), other.block);
  const share = (part: number, feed?: ShareFeed | null): PairShare => ({ part, parts: 2, block: other.block, claims, ...(feed == null ? {} : { feed }) });
  // Both shares' id digest files under one directory, removed whatever happens to the worker.
  // Without one (a temporary directory that cannot be written), one thread checks every record.
  const parent = await mkdtemp(join(tmpdir(), "lc-verify-")).catch(() => null);
  if (parent === null) return streamPair(manifestPath, exportPath, read, null);
  const ids: IdDigestOptions = { key: newBucketKey(), parent, ...(other.maxIdsInMemory === undefined ? {} : { maxInMemory: other.maxIdsInMemory }) };
  const worker =
    other.url === null ? null : shareOnWorker(other.url, { manifestPath, exportPath, chunkBytes, share: share(1), ids }, other.feedLimits ?? FEED_LIMITS);
  // The second share read from the files again (no worker, or one that failed) is held to the
  // same bytes by both files' hashes; with a worker, the export is hashed only when asked.
  const hashed = hashExport || worker === null;
  let mine: PairWalk | "reread" | "exact" = "exact";
  try {
    // This thread reads every byte, so its reads are the pair's progress.
    mine = await walkPair(manifestPath, exportPath, { ...read, hashExport: hashed }, share(0, worker?.feed), ids);
    if (typeof mine === "string") return mine;
    const failed = mine.m.failure !== null || (mine.e?.failure ?? null) !== null;
    // A file not read to its end was not handed on whole: its failure is the whole reading.
    if (failed) return readingOf(mine);
    const fromWorker = (await worker?.outcome) ?? null;
    other.onSecondShare?.(fromWorker === null ? "here" : "worker");
    // A worker that failed or was stopped, with the export not hashed: nothing would show that the
    // files did not change before a second read, so the pair is read again whole on this thread.
    if (fromWorker === null && !hashed) return streamPair(manifestPath, exportPath, { ...read, onChunk: undefined }, null);
    const theirs = fromWorker ?? (await walkShare(manifestPath, exportPath, chunkBytes, share(1), ids));
    if (typeof theirs === "string") return theirs;
    // This thread read both files to their end (above): the other share must have read the same bytes.
    if (theirs.failed || theirs.manifestSha256 !== (mine.m.end?.sha256 ?? null) || theirs.exportSha256 !== (mine.e?.end?.sha256 ?? null)) return "exact";
    mine.manifest.absorb(theirs.manifest);
    mine.exported.absorb(theirs.exported);
    return readingOf(mine);
  } finally {
    worker?.stop();
    if (typeof mine !== "string") mine.manifest.close();
    await rm(parent, { recursive: true, force: true });
  }
}

/** A file's size, or 0 when it cannot be read (its walk then says so). */
async function fileBytes(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

/** What pair-worker.ts is started with. */
export interface PairWorkerData {
  readonly manifestPath: string;
  readonly exportPath: string | null;
  readonly chunkBytes: number | undefined;
  readonly share: PairShare;
  readonly ids: IdDigestOptions;
}

/** What the worker posts: each batch's buffer once read, then once what its share found (null: its walk threw). */
export type PairWorkerReply = FeedTaken | { readonly kind: "outcome"; readonly outcome: ShareOutcome | null };

/** What this thread posts to the worker: its start data (first, to one started ahead), then its share. */
export type PairWorkerMessage = PairWorkerData | FeedMessage;

/**
 * A worker checking one share, handed it through `feed` (share-feed.ts); `outcome` is null when it
 * failed, exited or was stopped without answering. The worker started ahead for the script at
 * `url` (pair-worker-start.ts) is used when one waits.
 */
function shareOnWorker(
  url: URL,
  data: PairWorkerData,
  limits: FeedLimits,
): { outcome: Promise<ShareOutcome | null>; feed: ShareFeed | null; stop: () => void } {
  let worker: Worker;
  const ahead = takeStartedPairWorker(url);
  try {
    worker = ahead ?? new Worker(url, { workerData: data, resourceLimits: PAIR_WORKER_LIMITS });
  } catch {
    return { outcome: Promise.resolve(null), feed: null, stop: () => {} };
  }
  const stop = (): void => void worker.terminate();
  const feed = new ShareFeed(worker, data.share.part, limits, stop);
  const outcome = new Promise<ShareOutcome | null>((resolve) => {
    const ended = (): void => {
      feed.stop();
      resolve(null);
    };
    worker.on("message", (reply: PairWorkerReply) => {
      if (reply.kind === "taken") feed.taken(reply.buffer);
      else resolve(reply.outcome);
    });
    worker.once("error", ended);
    worker.once("exit", ended);
  });
  ahead?.postMessage(data);
  return { outcome, feed, stop };
}
