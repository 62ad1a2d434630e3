// `verifyShardIndex`: the index of a sharded ingest run re-checked, behind `little-canary verify
// --index` (building it is verbs/build-shard-index.ts, which writes files). The index rebuilt from
// the pairs it lists must be the index, byte for byte. Problems are data; only an invalid option
// or argument throws.
import { dirname, resolve } from "node:path";
import { canonicalJson, canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { readFailureMessage, readJsonDocument } from "../core/read-document.js";
import { IngestIndexSchema, type IngestIndex } from "../documents/ingest-index.js";
import { examineShards, type PairReadingHooks, type ShardIndexProblem, type ShardPair } from "./shard-pairs.js";
import { appendAll, type VerifyNote } from "./problems.js";
import { pinOption } from "./option-checks.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { checkReadingOptions, pathOption } from "./option-checks.js";

/** A shown path: printable ASCII as is (JSON-quoted), anything else not echoed. */
export function displayPath(path: string): string {
  return /^[\x20-\x7e]{1,240}$/.test(path) ? JSON.stringify(path) : "(path not shown)";
}

/** Options of `verifyShardIndex`. */
export interface VerifyShardIndexOptions extends PairReadingHooks {
  /** Path of the index file; the pairs it lists are resolved against its directory. */
  readonly index: string;
  /** The index's SHA-256 (64 hex digits, any case) as pinned out of band; left out or null: none; undefined: refused (pinOption). */
  readonly expectIndexSha256?: string | null;
  /** What messages call the pin: `expectIndexSha256` by default (the CLI passes `--expect-index-sha256`). */
  readonly pinName?: string;
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
  /** Facts about the pairs that are not problems (such as `canary_disabled`), each saying how many pairs it holds for. */
  readonly notes: VerifyNote[];
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

/** Every option verifyShardIndex takes; `satisfies` keeps the list equal to the interface. */
const VERIFY_SHARD_INDEX_OPTION_KEYS = Object.keys({
  index: true,
  expectIndexSha256: true,
  pinName: true,
  cwd: true,
  onProgress: true,
  onStrictRead: true,
} satisfies Record<keyof VerifyShardIndexOptions, true>);

/**
 * Re-checks an index and everything it names: the index's bytes against the pin, its schema
 * and canonical form, every listed pair with verifyFiles and against the SHA-256s it records,
 * that the shards tile the input exactly once, and that the index is exactly the one these
 * pairs give. Throws only UsageError, for an invalid pin or option or one it does not know; and
 * what an `onProgress` or `onStrictRead` of the caller's threw.
 */
export async function verifyShardIndex(options: VerifyShardIndexOptions): Promise<VerifyShardIndexResult> {
  // A misspelt pin (`expectIndexSHA256`) would otherwise verify the index unpinned in silence.
  refuseUnknownOptions("verifyShardIndex", options, VERIFY_SHARD_INDEX_OPTION_KEYS);
  pathOption("index", options.index);
  checkReadingOptions(options);
  const pinName = options.pinName ?? "expectIndexSha256";
  const pin = pinOption(options, "expectIndexSha256", pinName);
  const indexPath = resolve(options.cwd ?? process.cwd(), options.index);
  const result = (
    problems: ShardIndexProblem[],
    readable: boolean,
    indexSha256: string | null,
    shards: number,
    notes: VerifyNote[] = [],
  ): VerifyShardIndexResult => ({
    consistent: problems.length === 0,
    readable,
    indexSha256,
    pinned: pin !== null,
    shards,
    problems,
    notes,
  });
  let read: { value: unknown; sha256: string };
  try {
    read = await readJsonDocument(indexPath, "index");
  } catch (error) {
    return result([{ code: "index_unreadable", message: readFailureMessage(error, "index", indexPath), pair: null }], false, null, 0);
  }
  const problems: ShardIndexProblem[] = [];
  if (pin !== null && pin !== read.sha256) problems.push({ code: "index_sha256", message: `index sha256 does not match ${pinName}`, pair: null });
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
  const examined = await examineShards(pairs, dir, options);
  appendAll(problems, examined.problems);
  if (examined.document !== null) appendAll(problems, entryMismatches(recorded, examined.document));
  return result(problems, examined.readable, read.sha256, recorded.shards.length, examined.notes);
}
