// `buildShardIndex` and `verifyShardIndex`: the index of a sharded ingest run as library calls,
// behind `little-canary index` and `little-canary verify --index`.
//
// Building verifies every shard's pair and how the shards fit together (shard-pairs.ts) and
// writes the canonical index atomically only when nothing is wrong; otherwise nothing is
// written and every problem is returned. Verifying reads the index strictly, checks its
// SHA-256 against a pin, its schema and canonical form, then checks every pair it lists again,
// against the SHA-256s it records, and rebuilds the index from them: the result must be the
// index, byte for byte. Problems are data; only an invalid option or argument throws.
import { lstat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { canonicalJson, canonicalJsonUnchecked } from "../core/canonical.js";
import { fileIdentity, sameFile } from "../core/file-identity.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readJsonDocument } from "../core/read-document.js";
import { INDEX_SCHEMA, IngestIndexSchema, type IngestIndex } from "../documents/ingest-index.js";
import { writeFileAtomic } from "../publish/atomic-write.js";
import type { PublishFs } from "../publish/fs.js";
import { examineShards, type ShardIndexProblem, type ShardPair } from "./shard-pairs.js";
import { displayText, quotedText } from "../core/display-text.js";

/** One shard's pair as a caller names it: `MANIFEST:EXPORT`, or the two paths. */
export type ShardPairArgument = string | { readonly manifest: string; readonly export: string };

/**
 * Splits `MANIFEST:EXPORT` at its one colon. Throws UsageError naming the argument when it has
 * no colon, more than one (a path with a colon cannot be told apart; rename the file), or an
 * empty side.
 */
export function parseShardPairArgument(argument: string): { manifest: string; export: string } {
  const parts = argument.split(":");
  const [manifest, exported] = parts;
  const shown = quotedText(argument);
  if (parts.length < 2) throw new UsageError(`index: argument ${shown} must be MANIFEST:EXPORT (a manifest path, a colon, its export path)`);
  if (parts.length > 2) throw new UsageError(`index: argument ${shown} has more than one ':'; MANIFEST:EXPORT paths cannot contain a colon`);
  if (manifest === undefined || manifest === "" || exported === undefined || exported === "") {
    throw new UsageError(`index: argument ${shown} needs both a manifest path and an export path around its ':'`);
  }
  return { manifest, export: exported };
}

/** Options of `buildShardIndex`. */
export interface BuildShardIndexOptions {
  /** Where the index is written, atomically; an existing file there is replaced only when it is an index. */
  readonly out: string;
  /** Every shard's pair, in any order. */
  readonly pairs: readonly ShardPairArgument[];
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /** File system for the atomic write (tests inject faults here). */
  readonly fs?: PublishFs;
}

/** What `buildShardIndex` did: the index written, or every problem found (nothing written). */
export interface BuildShardIndexResult {
  /** True when the index was written: every pair verified and the shards tile the input. */
  readonly written: boolean;
  /** False when a file could not be read. */
  readonly readable: boolean;
  /** The index file (resolved). */
  readonly indexPath: string;
  /** SHA-256 of the index file's bytes, when written: the value to pin. */
  readonly indexSha256: string | null;
  readonly index: IngestIndex | null;
  /** Every problem, pair by pair; empty when written. */
  readonly problems: ShardIndexProblem[];
}

/** A shown path: printable ASCII as is (JSON-quoted), anything else not echoed. */
export function displayPath(path: string): string {
  return /^[\x20-\x7e]{1,240}$/.test(path) ? JSON.stringify(path) : "(path not shown)";
}

/**
 * An existing file at `--out` is replaced only when it is an index itself, so a slip of the
 * argument cannot overwrite the input, a manifest or anything else.
 */
async function refuseToReplaceOther(indexPath: string, shown: string): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(indexPath);
  } catch {
    return;
  }
  let isIndex = false;
  if (info.isFile()) {
    try {
      const { value } = await readJsonDocument(indexPath, "index");
      isIndex = typeof value === "object" && value !== null && (value as Record<string, unknown>)["schema"] === INDEX_SCHEMA;
    } catch {
      isIndex = false;
    }
  }
  if (!isIndex) throw new UsageError(`index: --out ${displayPath(shown)} exists and is not a ${INDEX_SCHEMA} document; it is never replaced`);
}

/**
 * Verifies every shard's pair (verifyFiles), requires one input, one shard count, one policy
 * and one canary identity, and that the shards tile the input exactly once; then writes the
 * canonical `little-canary-ingest-index/v1` document to `out` atomically. With any problem,
 * nothing is written. Throws UsageError for an invalid argument (no pair, a pair without its
 * colon, `out` naming a pair's file or an existing file that is not an index) and
 * LittleCanaryError("publish") when the index cannot be written (a failed write leaves any
 * previous index at `out` as it was).
 */
export async function buildShardIndex(options: BuildShardIndexOptions): Promise<BuildShardIndexResult> {
  const cwd = options.cwd ?? process.cwd();
  if (options.pairs.length === 0) throw new UsageError("index: give at least one MANIFEST:EXPORT pair");
  const indexPath = resolve(cwd, options.out);
  const pairs: ShardPair[] = options.pairs.map((argument) => {
    const named = typeof argument === "string" ? parseShardPairArgument(argument) : argument;
    const pair = { ...named, manifestPath: resolve(cwd, named.manifest), exportPath: resolve(cwd, named.export), pins: null };
    return { ...pair, manifest: displayPath(named.manifest) };
  });
  // By identity: an --out that is a symlink or a hard link to a shard's file is that file too.
  const out = await fileIdentity(indexPath);
  for (const pair of pairs) {
    for (const path of [pair.manifestPath, pair.exportPath]) {
      if (sameFile(out, await fileIdentity(path))) throw new UsageError(`index: --out ${displayPath(options.out)} names a shard's file`);
    }
  }
  await refuseToReplaceOther(indexPath, options.out);
  const examined = await examineShards(pairs, dirname(indexPath));
  if (examined.document === null) {
    return { written: false, readable: examined.readable, indexPath, indexSha256: null, index: null, problems: examined.problems };
  }
  const json = canonicalJson(IngestIndexSchema, examined.document);
  try {
    await writeFileAtomic(indexPath, json, options.fs ? { fs: options.fs } : {});
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const reason = typeof code === "string" && /^E[A-Z]{2,12}$/.test(code) ? ` (${code})` : "";
    throw new LittleCanaryError("publish", `could not write the index ${displayPath(options.out)}${reason}; no index written`, { cause: error });
  }
  return { written: true, readable: true, indexPath, indexSha256: sha256Hex(json), index: examined.document, problems: [] };
}

/** Options of `verifyShardIndex`. */
export interface VerifyShardIndexOptions {
  /** Path of the index file; the pairs it lists are resolved against its directory. */
  readonly index: string;
  /** The index's SHA-256 (64 hex digits, any case) as pinned out of band. */
  readonly expectIndexSha256?: string | null;
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
}

/** What `verifyShardIndex` found. */
export interface VerifyShardIndexResult {
  /** True when there is no problem at all (index and every pair read, pin matched if given). */
  readonly consistent: boolean;
  /** False when the index or a file it lists could not be read. */
  readonly readable: boolean;
  /** SHA-256 of the index file's bytes; null when it could not be read. */
  readonly indexSha256: string | null;
  readonly pinned: boolean;
  /** Shards the index lists (0 when it could not be read or parsed). */
  readonly shards: number;
  readonly problems: ShardIndexProblem[];
}

/** Normalises an index pin; throws UsageError unless it is 64 hex digits. */
export function normalizeIndexPin(pin: string): string {
  const normalized = pin.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(normalized)) throw new UsageError("--expect-index-sha256 must be 64 hex digits");
  return normalized;
}

/** Where the recorded index and the one rebuilt from its pairs differ, shard by shard. */
function entryMismatches(recorded: IngestIndex, rebuilt: IngestIndex): ShardIndexProblem[] {
  const problems: ShardIndexProblem[] = [];
  for (const key of Object.keys(recorded) as Array<keyof IngestIndex>) {
    if (key === "shards") continue;
    if (canonicalJsonUnchecked(recorded[key]) !== canonicalJsonUnchecked(rebuilt[key])) {
      problems.push({ code: "index_entry_mismatch", message: `index: its ${key} is not what the shards' manifests give`, pair: null });
    }
  }
  recorded.shards.forEach((entry, position) => {
    const again = rebuilt.shards[position];
    if (again === undefined || canonicalJsonUnchecked(entry) !== canonicalJsonUnchecked(again)) {
      problems.push({
        code: "index_entry_mismatch",
        message: `index: its entry ${position} (shard ${entry.k}/${entry.n}, ${displayPath(entry.manifest.path)}) is not what its pair gives, or not in order of k`,
        pair: position,
      });
    }
  });
  return problems;
}

/**
 * Re-checks an index and everything it names: the index's bytes against the pin, its schema
 * and canonical form, every listed pair with verifyFiles and against the SHA-256s it records,
 * that the shards tile the input exactly once, and that the index is exactly the one these
 * pairs give. Throws only UsageError for an invalid pin.
 */
export async function verifyShardIndex(options: VerifyShardIndexOptions): Promise<VerifyShardIndexResult> {
  const pin = options.expectIndexSha256 == null ? null : normalizeIndexPin(options.expectIndexSha256);
  const indexPath = resolve(options.cwd ?? process.cwd(), options.index);
  const result = (problems: ShardIndexProblem[], readable: boolean, indexSha256: string | null, shards: number): VerifyShardIndexResult => ({
    consistent: problems.length === 0,
    readable,
    indexSha256,
    pinned: pin !== null,
    shards,
    problems,
  });
  let read: { value: unknown; sha256: string };
  try {
    read = await readJsonDocument(indexPath, "index");
  } catch (error) {
    const message = error instanceof LittleCanaryError && error.code === "io" ? error.message : `cannot read index ${displayText(indexPath)}`;
    return result([{ code: "index_unreadable", message, pair: null }], false, null, 0);
  }
  const problems: ShardIndexProblem[] = [];
  if (pin !== null && pin !== read.sha256) problems.push({ code: "index_sha256", message: "index sha256 does not match --expect-index-sha256", pair: null });
  const parsed = IngestIndexSchema.safeParse(read.value);
  if (!parsed.success) {
    problems.push({ code: "index_invalid", message: "index is not a valid little-canary-ingest-index/v1 document", pair: null });
    return result(problems, true, read.sha256, 0);
  }
  const recorded = parsed.data;
  if (sha256Hex(canonicalJson(IngestIndexSchema, recorded)) !== read.sha256) {
    problems.push({ code: "index_invalid", message: "index bytes are not its canonical JSON form", pair: null });
  }
  if (recorded.shards.length === 0) problems.push({ code: "index_invalid", message: "index lists no shard", pair: null });
  // An index that is not the pinned one is not trusted to name the files to open: its paths may
  // lead anywhere, so none of its pairs is read.
  if (pin !== null && pin !== read.sha256) return result(problems, true, read.sha256, recorded.shards.length);
  const dir = dirname(indexPath);
  const pairs: ShardPair[] = recorded.shards.map((entry) => ({
    manifest: displayPath(entry.manifest.path),
    export: displayPath(entry.export.path),
    manifestPath: resolve(dir, entry.manifest.path),
    exportPath: resolve(dir, entry.export.path),
    pins: { manifest: entry.manifest.sha256, export: entry.export.sha256 },
    expected: { k: entry.k, n: entry.n },
  }));
  const examined = await examineShards(pairs, dir);
  problems.push(...examined.problems);
  if (examined.document !== null) problems.push(...entryMismatches(recorded, examined.document));
  return result(problems, examined.readable, read.sha256, recorded.shards.length);
}
