// The checks behind the index of a sharded run, shared by `buildShardIndex` (which writes it) and
// `verifyShardIndex` (which re-checks one): every shard's pair is verified with verifyFiles
// (optionally against the SHA-256s an index pins), then the shards must agree (one input, shard
// count, policy, pipeline and version) and tile the input exactly once (every k of n once, each
// covering the range its k, n and the input's line count define). Only then is the index
// assembled. Every problem names its shard (k/n and manifest path as given, or its place among
// the pairs when its manifest could not be read), never any record content.
import { relative, sep } from "node:path";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { INDEX_SCHEMA, type IndexShard, type IngestIndex } from "../documents/ingest-index.js";
import { z } from "zod";
import { IngestManifestSchema, pipelineWithoutRulesVersion, type ManifestCounts } from "../documents/schemas.js";
import { IngestManifestV2Schema, IngestManifestV3Schema, type ManifestHead } from "../documents/manifest-v2.js";
import { describeRange, shardRange, type ManifestShard } from "../documents/shard.js";
import { countRecords } from "../documents/counts.js";
import { filesBytes, verifyFilesWithMode, type VerifyFilesOptions } from "./verify-files.js";
import { UNVERIFIABLE_PROBLEM_CODES, type VerifyNote } from "./problems.js";
import { displayText } from "../core/display-text.js";
import { isObj } from "./_values.js";

/** Every problem code of building or verifying an index. */
export const SHARD_INDEX_PROBLEM_CODES = [
  "index_unreadable",
  "index_sha256",
  "index_invalid",
  "index_entry_mismatch",
  "shard_unreadable",
  "shard_pair",
  "shard_manifest_sha256",
  "shard_export_sha256",
  "shard_not_sharded",
  "shard_input_mismatch",
  "shard_count_mismatch",
  "shard_policy_mismatch",
  "shard_identity_mismatch",
  "shard_duplicate",
  "shard_missing",
  "shard_tiling",
] as const;

/** The stable code of a problem of an index. */
export type ShardIndexProblemCode = (typeof SHARD_INDEX_PROBLEM_CODES)[number];

/** One problem of an index: a stable code, a sentence naming the shard, and which pair (0-based, null for the index itself). */
export interface ShardIndexProblem {
  readonly code: ShardIndexProblemCode;
  readonly message: string;
  readonly pair: number | null;
}

/** One shard's published pair: the paths as given (for messages) and resolved. */
export interface ShardPair {
  /** The manifest path as the caller named it. */
  readonly manifest: string;
  /** The export path as the caller named it. */
  readonly export: string;
  readonly manifestPath: string;
  readonly exportPath: string;
  /** The SHA-256s an index pins for this pair (verify), or null (build). */
  readonly pins: { readonly manifest: string; readonly export: string } | null;
  /** The shard an index says this pair is (verify), named when the manifest cannot be read. */
  readonly expected?: { readonly k: number; readonly n: number };
}

/** A head of any manifest version (they differ in `schema` and, from v3, the pipeline's rules version). */
const HeadSchema = z.union([
  IngestManifestSchema.omit({ records: true }),
  IngestManifestV2Schema.omit({ records: true }),
  IngestManifestV3Schema.omit({ records: true }),
]);

/** A pair as verified: its head (when schema-valid) and the SHA-256s of the bytes verified. */
interface ExaminedPair {
  readonly position: number;
  readonly pair: ShardPair;
  readonly head: ManifestHead | null;
  readonly manifestSha256: string | null;
  readonly exportSha256: string | null;
  /** The pair's notes (facts that are not problems, as verifyFiles gives them). */
  readonly notes: readonly VerifyNote[];
}

/** A sharded pair (its head records a shard). */
interface ShardedPair extends ExaminedPair {
  readonly head: ManifestHead;
  readonly shard: ManifestShard;
}

/** What examining the pairs found. */
export interface ExaminedShards {
  /** False when a file could not be read (nothing about it could be judged). */
  readonly readable: boolean;
  readonly problems: ShardIndexProblem[];
  /** The index document, when there is no problem at all. */
  readonly document: IngestIndex | null;
  /** The pairs' notes, one per kind, each saying how many of the pairs it holds for (notesOfPairs). */
  readonly notes: VerifyNote[];
}

/** One note per code the pairs carry, in the order first met, saying how many of `pairs` pairs it holds for. */
function notesOfPairs(examined: readonly ExaminedPair[], pairs: number): VerifyNote[] {
  const byCode = new Map<string, { note: VerifyNote; count: number }>();
  for (const entry of examined) {
    for (const note of entry.notes) {
      const seen = byCode.get(note.code);
      if (seen === undefined) byCode.set(note.code, { note, count: 1 });
      else seen.count++;
    }
  }
  return [...byCode.values()].map(({ note, count }) => ({ code: note.code, message: `${note.message} in ${count} of ${pairs} pair${pairs === 1 ? "" : "s"}` }));
}

function label(entry: ExaminedPair): string {
  const shard = entry.head?.run.shard ?? entry.pair.expected;
  return shard === undefined ? `pair ${entry.position + 1} (${entry.pair.manifest})` : `shard ${shard.k}/${shard.n} (${entry.pair.manifest})`;
}

/** A path shown as is in a message: printable ASCII, bounded. */
const PRINTABLE = /^[\x20-\x7e]{1,1024}$/;

/** Verifies one pair and reports its problems under its label. */
async function examinePair(
  pair: ShardPair,
  position: number,
  problems: ShardIndexProblem[],
  hooks: Pick<VerifyFilesOptions, "onProgress" | "onStrictRead">,
): Promise<{ entry: ExaminedPair; readable: boolean }> {
  // The index records each export's SHA-256: asked for here, where a plain verify skips it.
  const { result, documents } = await verifyFilesWithMode(
    { manifest: pair.manifestPath, export: pair.exportPath, expectManifestSha256: pair.pins?.manifest ?? null, ...hooks },
    "canonical",
    undefined,
    true,
  );
  const parsed = documents.manifestHead === null ? null : HeadSchema.safeParse(documents.manifestHead);
  const head = parsed?.success ? parsed.data : null;
  const entry: ExaminedPair = { position, pair, head, manifestSha256: result.manifestSha256, exportSha256: documents.exportSha256, notes: result.notes };
  const name = label(entry);
  if (!result.readable) {
    for (const problem of result.problems) {
      if (!UNVERIFIABLE_PROBLEM_CODES.has(problem.code)) continue;
      // The read problem names the resolved path: one an index lists is never echoed unless printable.
      let message = problem.message;
      for (const path of [pair.manifestPath, pair.exportPath]) {
        if (!PRINTABLE.test(path)) message = message.split(displayText(path)).join("(path not shown)").split(path).join("(path not shown)");
      }
      problems.push({ code: "shard_unreadable", message: `${name}: ${message}`, pair: position });
    }
    return { entry, readable: false };
  }
  // verify's manifest_sha256 is either the pin (here: the index's record of the manifest) or the
  // export bound to another manifest; only the first is the index's to name.
  const unpinned = pair.pins !== null && result.manifestSha256 !== pair.pins.manifest;
  for (const problem of result.problems) {
    if (problem.code === "manifest_sha256" && unpinned)
      problems.push({ code: "shard_manifest_sha256", message: `${name}: the manifest's sha256 is not the one the index records`, pair: position });
    else problems.push({ code: "shard_pair", message: `${name}: [${problem.code}] ${problem.message}`, pair: position });
  }
  if (pair.pins !== null && documents.exportSha256 !== pair.pins.export) {
    problems.push({ code: "shard_export_sha256", message: `${name}: the export's sha256 is not the one the index records`, pair: position });
  }
  return { entry, readable: true };
}

/**
 * The entries outside the largest group by `key` (ties: the group of the earliest entry), so
 * one odd shard is the one named, not all the others.
 */
function outliers<T extends ExaminedPair>(entries: readonly T[], key: (entry: T) => string): { odd: T[]; reference: T | undefined } {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const k = key(entry);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [entry]);
    else group.push(entry);
  }
  let best: T[] = [];
  for (const group of groups.values()) if (group.length > best.length) best = group;
  const chosen = new Set(best);
  return { odd: entries.filter((entry) => !chosen.has(entry)), reference: best[0] };
}

/** Head members that must be equal in every shard: all but the run's own (times, run, counts). */
const PER_RUN_MEMBERS = new Set(["started_at", "finished_at", "run", "counts", "policy"]);

function identityMembers(entries: readonly ShardedPair[]): string[] {
  const keys = new Set<string>();
  for (const entry of entries) for (const key of Object.keys(entry.head)) if (!PER_RUN_MEMBERS.has(key)) keys.add(key);
  return [...keys].sort();
}

const text = (value: unknown): string => (value === undefined ? "" : canonicalJsonUnchecked(value));

/**
 * Keeps the shards that agree on input, n, policy and identity; reports the others. `reported`:
 * the k of each shard of this input and n dropped for its policy or identity, which is there
 * (reported already), not missing.
 */
function agreeing(sharded: ShardedPair[], problems: ShardIndexProblem[]): { kept: ShardedPair[]; reported: Set<number> } {
  let kept = sharded;
  const reported = new Set<number>();
  const drop = (odd: ShardedPair[], code: ShardIndexProblemCode, says: (entry: ShardedPair) => string): void => {
    for (const entry of odd) problems.push({ code, message: `${label(entry)}: ${says(entry)}`, pair: entry.position });
    if (code === "shard_policy_mismatch" || code === "shard_identity_mismatch") for (const entry of odd) reported.add(entry.shard.k);
    const gone = new Set(odd);
    kept = kept.filter((entry) => !gone.has(entry));
  };
  const input = outliers(kept, (e) => `${e.head.run.input_sha256}:${e.shard.input_lines}`);
  const ref = input.reference;
  drop(
    input.odd,
    "shard_input_mismatch",
    (e) =>
      `is a shard of another input (input sha256 ${e.head.run.input_sha256}, ${e.shard.input_lines} lines; the other shards: ${ref?.head.run.input_sha256}, ${ref?.shard.input_lines} lines)`,
  );
  const count = outliers(kept, (e) => String(e.shard.n));
  drop(count.odd, "shard_count_mismatch", (e) => `is one of ${e.shard.n} shards, the other shards are of ${count.reference?.shard.n}`);
  drop(outliers(kept, (e) => text(e.head.policy)).odd, "shard_policy_mismatch", () => "its policy differs from the other shards'");
  for (const member of identityMembers(kept)) {
    const odd = outliers(kept, (e) => text((e.head as Record<string, unknown>)[member])).odd;
    drop(odd, "shard_identity_mismatch", () => `its manifest's ${member} differs from the other shards' (one canary identity and one version for all)`);
  }
  return { kept, reported };
}

/**
 * Every k of n once, each covering the range its k, n and the input's line count define; a k in
 * `reported` (its pair is there, reported for its policy or identity) is not called missing too.
 */
function checkTiling(
  { kept, reported }: { readonly kept: readonly ShardedPair[]; readonly reported: ReadonlySet<number> },
  problems: ShardIndexProblem[],
): ShardedPair[] {
  const first = kept[0];
  if (first === undefined) return [];
  const { n, input_lines: lines } = first.shard;
  const byK = new Map<number, ShardedPair>();
  for (const entry of kept) {
    const seen = byK.get(entry.shard.k);
    if (seen !== undefined) {
      problems.push({
        code: "shard_duplicate",
        message: `shard ${entry.shard.k}/${n} is given twice: ${seen.pair.manifest} (pair ${seen.position + 1}) and ${entry.pair.manifest} (pair ${entry.position + 1})`,
        pair: entry.position,
      });
      continue;
    }
    byK.set(entry.shard.k, entry);
    const expected = shardRange(entry.shard, lines);
    if (expected.first_line !== entry.shard.first_line || expected.lines !== entry.shard.lines) {
      problems.push({
        code: "shard_tiling",
        message: `${label(entry)}: covers ${describeRange(entry.shard)}, but shard ${entry.shard.k}/${n} of ${lines} lines covers ${describeRange(expected)} (ranges would overlap or leave a gap)`,
        pair: entry.position,
      });
    }
  }
  const missing: number[] = [];
  for (let k = 0; k < n; k++) if (!byK.has(k) && !reported.has(k)) missing.push(k);
  const shown = missing.slice(0, 20);
  for (const k of shown) {
    problems.push({
      code: "shard_missing",
      message: `shard ${k}/${n} is missing (no pair covers ${describeRange(shardRange({ k, n }, lines))} of the input)`,
      pair: null,
    });
  }
  if (missing.length > shown.length) {
    problems.push({ code: "shard_missing", message: `and ${missing.length - shown.length} more shards of ${n} are missing`, pair: null });
  }
  return [...byK.values()].sort((a, b) => a.shard.k - b.shard.k);
}

function addCounts(total: Record<string, unknown>, add: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(add)) {
    const current = total[key];
    // A count present only once non-zero (counts.allowlisted) starts with the first shard that has it.
    if (typeof value === "number") total[key] = ((current as number | undefined) ?? 0) + value;
    else if (isObj(value) && isObj(current)) addCounts(current, value);
  }
}

/** A path relative to the index's directory, with `/` separators. */
function indexPath(indexDir: string, path: string): string {
  return relative(indexDir, path).split(sep).join("/");
}

function assemble(shards: readonly ShardedPair[], indexDir: string): IngestIndex {
  const first = shards[0] as ShardedPair;
  const counts = countRecords([]) as ManifestCounts;
  let records = 0;
  let checks = 0;
  const entries: IndexShard[] = shards.map((entry) => {
    const { shard, head } = entry;
    addCounts(counts as unknown as Record<string, unknown>, head.counts as unknown as Record<string, unknown>);
    records += head.run.records_total;
    checks += head.run.checks_performed;
    return {
      k: shard.k,
      n: shard.n,
      first_line: shard.first_line,
      lines: shard.lines,
      range_sha256: shard.range_sha256,
      records_total: head.run.records_total,
      checks_performed: head.run.checks_performed,
      manifest: { path: indexPath(indexDir, entry.pair.manifestPath), sha256: entry.manifestSha256 as string },
      export: { path: indexPath(indexDir, entry.pair.exportPath), sha256: entry.exportSha256 as string },
      counts: head.counts,
    };
  });
  return {
    schema: INDEX_SCHEMA,
    little_canary_version: first.head.little_canary_version,
    input_sha256: first.head.run.input_sha256 as string,
    input_lines: first.shard.input_lines,
    shard_count: first.shard.n,
    policy: first.head.policy,
    // The index (v1) has no key for a v3 pipeline's rules version: every shard's pinned manifest
    // records it, and the shards were held to one pipeline, that version included.
    pipeline: pipelineWithoutRulesVersion(first.head.pipeline),
    shards: entries,
    totals: { records_total: records, checks_performed: checks, counts },
  };
}

/** Who hears how reading the listed pairs goes (options of `verifyShardIndex`). */
export interface PairReadingHooks {
  /** Hears how far reading the pairs got: bytes of every listed file read so far, of their total. */
  readonly onProgress?: (read: number, total: number) => void;
  /** Hears that a listed pair is read again by the strict reader (see `verifyFiles`), with its manifest's path as displayPath shows it and its bytes. */
  readonly onStrictRead?: (manifest: string, totalBytes: number) => void;
}

/**
 * Verifies every pair, checks that the shards agree and tile the input exactly once, and
 * assembles the index (paths relative to `indexDir`) when nothing is wrong. Never throws for
 * any file content.
 */
export async function examineShards(pairs: readonly ShardPair[], indexDir: string, hooks: PairReadingHooks = {}): Promise<ExaminedShards> {
  // null is "not given", as everywhere in the options.
  const onProgress = hooks.onProgress ?? undefined;
  const onStrictRead = hooks.onStrictRead ?? undefined;
  const problems: ShardIndexProblem[] = [];
  const examined: ExaminedPair[] = [];
  let readable = true;
  // Progress over every pair: the bytes of the pairs done and of the one being read, of all.
  const sizes = onProgress === undefined ? [] : await Promise.all(pairs.map((pair) => filesBytes([pair.manifestPath, pair.exportPath])));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  let done = 0;
  for (const [position, pair] of pairs.entries()) {
    const size = sizes[position] ?? 0;
    const { entry, readable: read } = await examinePair(pair, position, problems, {
      ...(onProgress === undefined ? {} : { onProgress: (read: number) => onProgress(done + Math.min(read, size), total) }),
      ...(onStrictRead === undefined ? {} : { onStrictRead: (bytes: number) => onStrictRead(pair.manifest, bytes) }),
    });
    done += size;
    readable &&= read;
    examined.push(entry);
  }
  const sharded: ShardedPair[] = [];
  for (const entry of examined) {
    if (entry.head === null) continue;
    const shard = entry.head.run.shard;
    if (shard === undefined) {
      problems.push({
        code: "shard_not_sharded",
        message: `${label(entry)}: its manifest records no shard (it was not made with ingest --shard)`,
        pair: entry.position,
      });
    } else sharded.push({ ...entry, head: entry.head, shard });
  }
  const tiled = checkTiling(agreeing(sharded, problems), problems);
  // Problems are listed pair by pair, then the index-wide ones (missing shards).
  problems.sort((a, b) => (a.pair ?? Number.MAX_SAFE_INTEGER) - (b.pair ?? Number.MAX_SAFE_INTEGER));
  const notes = notesOfPairs(examined, pairs.length);
  if (problems.length > 0 || tiled.length === 0) return { readable, problems, document: null, notes };
  return { readable, problems, document: assemble(tiled, indexDir), notes };
}
