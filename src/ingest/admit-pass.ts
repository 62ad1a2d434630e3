// The first pass of an ingest run (admission): the whole input read strictly and every record
// validated before the first check (a refused input: nothing checked or written). Each record goes
// to a scratch file beside the manifest (held: its entry, with its text in the manifest version
// written, so no entry is serialized twice; planned: the record read) that the
// second pass reads back, so stdin is read once and a file never twice (a shard's second read is
// checked: files.ts). `admitRecords` admits records in memory into an array the same way.
import { hash } from "node:crypto";
import { finishedEntryText } from "../documents/manifest-build.js";
import type { ManifestVersion } from "../documents/manifest-v2.js";
import { readerLimitsForPolicy, type IngestPolicy } from "../documents/policy.js";
import type { SegmentableRecord } from "../documents/segment-plan.js";
import type { ManifestRecord } from "../documents/schemas.js";
import { scanRecords, type ReaderRefusal } from "../jsonl/read.js";
import type { RawRecord } from "../jsonl/record.js";
import { ScratchFile, ScratchFileError, scratchLines, type ScratchLine } from "../publish/scratch-file.js";
import type { RecordIdIndex } from "./id-index.js";
import type { DuplicateId } from "./run-summary.js";
import { holdBeforeChecks, snapshotOf } from "./record-check.js";
import { displayText } from "../core/display-text.js";

/** A record held before any check, as the second pass takes it: its entry, finished. */
interface HeldLine {
  /** The entry's canonical text in the manifest version the run writes (made here, once). */
  readonly held: string;
  /** The entry itself (v1 facts), for the counts and the CI reports. */
  readonly entry: ManifestRecord;
  /** 1-based input line the record was read from. */
  readonly line: number;
}

/** One line of the first pass's scratch file, as the second pass reads it. */
export type PreparedLine =
  | HeldLine
  | {
      readonly index: number;
      /** 1-based input line the record was read from (blank lines count), for CI reports. */
      readonly line: number;
      /** SHA-256 of the record's input line, its name in the record cache; null for a record given in memory (never cached). */
      readonly lineSha256: string | null;
      /** The record, parsed from its line on first call: a record whose whole entry is reused (and not exported) never needs it. */
      readonly record: () => SegmentableRecord;
    };

// A planned record's line: a fixed head the second pass reads without a JSON parser, then the
// record the reader built, as JSON (JSON.stringify escapes every line break and lone surrogate),
// so the second pass takes it back without the reader. Held records are HeldLine objects as JSON.
const PLANNED_HEAD = /^\{"index":(\d{1,15}),"line":(\d{1,15}),"line_sha256":"([0-9a-f]{64})","record":/;
const HEAD_BYTES = 200;

/** The prepared records a first pass leaves, read back in order by the second. */
interface PreparedRecords {
  /** The prepared lines in input order. */
  lines(): AsyncIterable<PreparedLine>;
  /** Frees what holds them (the scratch file). Never throws. */
  remove(): Promise<void>;
}

/** What the first pass leaves for the second. */
export interface AdmitPassResult {
  readonly prepared: PreparedRecords;
  readonly records: number;
  /** SHA-256 of the input bytes read, or the caller's for records given in memory (null when unknown). */
  readonly inputSha256: string | null;
  /** False when every string id was indexed and none repeated: the id digests all differ, so `duplicate_ids` needs no lookup. */
  readonly idDigestsMayRepeat: boolean;
  /** The manifest version the held entries' texts are in: the second pass writes every entry in it. */
  readonly manifestVersion: ManifestVersion;
}

/** What admission needs, wherever the records come from. */
export interface AdmissionOptions {
  readonly policy: IngestPolicy;
  /** Where valid records' ids are looked up (keys prefixed `id:`). */
  readonly ids: RecordIdIndex;
  readonly uniqueIds: boolean;
  /** The manifest version the run writes (the run plan's): a held record's entry is made canonical in it here. */
  readonly manifestVersion: ManifestVersion;
}

/** Options of `admitPass`. */
export interface AdmitPassOptions extends AdmissionOptions {
  /** The scratch file goes beside this path (the manifest). */
  readonly besidePath: string;
  /** Checked between chunks: an abort stops the read. */
  readonly signal?: AbortSignal;
  /** The line number of the source's first line (a shard's lines keep the input's numbers). */
  readonly firstLine?: number;
  /** Told of each planned record in order with its line's SHA-256 (the record prefetch); a promise it gives is awaited. */
  readonly onPlanned?: (index: number, lineSha256: string) => Promise<void> | undefined;
}

/** Where admission puts each record: as its finished entry when it is held, else as planned. */
interface PreparedSink {
  held(line: HeldLine): Promise<void>;
  /** Keeps a record to check; gives the SHA-256 of its input line, when it has one. */
  planned(record: RawRecord): Promise<string | null>;
}

/** Admission of one record at a time, in input order: its id looked up, a hold decided before any check, the record handed to `sink`. */
function admission(
  sink: PreparedSink,
  options: AdmissionOptions,
  onPlanned?: AdmitPassOptions["onPlanned"],
  onDuplicate?: (duplicate: DuplicateId) => void,
): {
  readonly add: (record: RawRecord) => Promise<void>;
  /** The pass's result once every record was added. */
  readonly result: <S extends string | null>(prepared: PreparedRecords, records: number, inputSha256: S) => AdmitPassResult & { readonly inputSha256: S };
} {
  const { policy, ids, uniqueIds, manifestVersion } = options;
  let duplicates = 0;
  // Malformed records with a string id: their entries carry its digest, but the id is not indexed.
  let unindexedIds = 0;
  const add = async (record: RawRecord): Promise<void> => {
    let duplicateOf: number | undefined;
    const malformed = record.problems.some((p) => p.severity === "malformed");
    if (typeof record.id === "string" && malformed) unindexedIds++;
    if (typeof record.id === "string" && !malformed) {
      const seen = ids.firstIndex(`id:${record.id}`, record.index);
      if (seen !== record.index) {
        duplicates++;
        onDuplicate?.({ index: record.index, firstIndex: seen });
        if (uniqueIds) duplicateOf = seen;
      }
    }
    // Only a hold is decided here; the second pass plans (slices and hashes) the rest.
    const held = holdBeforeChecks(record, policy, duplicateOf);
    if (held !== null) return sink.held({ held: finishedEntryText(held, record.index, policy, manifestVersion), entry: held, line: record.line });
    const digest = await sink.planned(record);
    if (digest !== null) await onPlanned?.(record.index, digest);
  };
  return {
    add,
    result: (prepared, records, inputSha256) => ({ prepared, records, inputSha256, idDigestsMayRepeat: duplicates > 0 || unindexedIds > 0, manifestVersion }),
  };
}

/** A sink that writes each prepared record as one line of `spool`. */
function scratchSink(spool: ScratchFile): PreparedSink {
  return {
    // JSON.stringify escapes every line break and writes lone surrogates as escapes, so one
    // record is one line and reads back as the same strings.
    held: async (line) => {
      await spool.append(`${JSON.stringify(line)}\n`);
    },
    planned: async (record) => {
      const bytes = record.lineBytes;
      if (bytes === undefined) throw new ScratchFileError("the first pass needs each record's line bytes");
      // One-shot: no hash object per record.
      const digest = hash("sha256", bytes, "hex");
      await spool.append(`{"index":${record.index},"line":${record.line},"line_sha256":"${digest}","record":${JSON.stringify(snapshotOf(record))}}\n`);
      return digest;
    },
  };
}

/** Reads and prepares every record; a refusal comes back as a value with the scratch file removed. */
export async function admitPass(
  source: AsyncIterable<Uint8Array>,
  options: AdmitPassOptions,
): Promise<{ ok: true; result: AdmitPassResult & { readonly inputSha256: string } } | { ok: false; refusal: ReaderRefusal }> {
  const { policy, signal } = options;
  const spool = await ScratchFile.create(options.besidePath, "records");
  const admit = admission(scratchSink(spool), options, options.onPlanned);
  const onRecord = (record: RawRecord): Promise<void> => {
    if (signal?.aborted) throw signal.reason;
    return admit.add(record);
  };
  try {
    const limits = readerLimitsForPolicy(policy);
    const outcome = await scanRecords(source, { kind: "ingest", limits, keepLineBytes: true, firstLine: options.firstLine }, onRecord);
    if (!outcome.ok) {
      await spool.remove();
      return outcome;
    }
    await spool.seal();
    const prepared: PreparedRecords = {
      lines: async function* () {
        for await (const line of scratchLines(spool, "the first pass's scratch file")) yield lineAt(line, spool);
      },
      remove: () => spool.remove(),
    };
    return { ok: true, result: admit.result(prepared, outcome.records, outcome.inputSha256) };
  } catch (error) {
    await spool.remove();
    throw error;
  }
}

/**
 * Records already in memory through the same admission, kept in an array: what `ingestRecords`
 * feeds the second pass, with the valid records whose string id an earlier valid record used.
 */
export async function admitRecords(
  records: readonly RawRecord[],
  options: AdmissionOptions & { readonly inputSha256: string | null },
): Promise<AdmitPassResult & { readonly duplicateIds: readonly DuplicateId[] }> {
  const lines: PreparedLine[] = [];
  const duplicateIds: DuplicateId[] = [];
  const admit = admission(
    {
      held: async (line) => {
        lines.push(line);
      },
      planned: async (record) => {
        let snapshot: SegmentableRecord | null = null;
        lines.push({ index: record.index, line: record.line, lineSha256: null, record: () => (snapshot ??= snapshotOf(record)) });
        return null;
      },
    },
    options,
    undefined,
    (duplicate) => duplicateIds.push(duplicate),
  );
  for (const record of records) await admit.add(record);
  const prepared: PreparedRecords = {
    lines: async function* () {
      yield* lines;
    },
    remove: async () => {
      lines.length = 0;
    },
  };
  return { ...admit.result(prepared, records.length, options.inputSha256), duplicateIds };
}

/** The line in `bytes[start, end)`, valid only until the next is read: what a record keeps is copied (latin1, byte for byte). */
function lineAt({ bytes, start, end }: ScratchLine, spool: ScratchFile): PreparedLine {
  const head = PLANNED_HEAD.exec(bytes.toString("latin1", start, Math.min(end, start + HEAD_BYTES)));
  if (head === null) return JSON.parse(bytes.toString("utf8", start, end)) as PreparedLine;
  // The line ends with the object's closing brace; the record is what lies between.
  if (bytes[end - 1] !== 0x7d) throw new ScratchFileError(`the first pass's scratch file ${displayText(spool.path)} holds a malformed record line`);
  const raw = bytes.toString("latin1", start + (head[0] as string).length, end - 1);
  const index = Number(head[1]);
  const line = Number(head[2]);
  let snapshot: SegmentableRecord | null = null;
  return {
    index,
    line,
    lineSha256: head[3] as string,
    record: () => {
      if (snapshot !== null) return snapshot;
      let parsed: SegmentableRecord;
      try {
        parsed = JSON.parse(Buffer.from(raw, "latin1").toString("utf8")) as SegmentableRecord;
      } catch {
        throw new ScratchFileError(`the first pass's scratch file ${displayText(spool.path)} holds a record that no longer parses`);
      }
      // Frozen like the snapshot the first pass wrote (snapshotOf).
      snapshot = Object.freeze({ ...parsed, metadata: Object.freeze(parsed.metadata) });
      return snapshot;
    },
  };
}
