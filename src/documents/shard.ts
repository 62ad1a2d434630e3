// Shards of one ingest input: the K-th of N contiguous ranges of its physical lines, cut by line
// count alone, so every process that knows K, N and the input's line count computes the same
// range without talking to the others. K is 0-based, as Kubernetes numbers the pods of an
// Indexed Job, so `--shard "$JOB_COMPLETION_INDEX/N"` needs no arithmetic.
// Range of shard K over L lines: lines floor(K·L/N)+1 … floor((K+1)·L/N) (1-based, inclusive).
// Consecutive shards meet exactly, shard 0 starts at line 1, shard N−1 ends at line L, and the
// sizes differ by at most one line; with N > L some shards are empty. Blank lines are physical
// lines like any other: they belong to the shard whose range holds them and are skipped there,
// as in an unsharded run. The products are computed exactly (BigInt), whatever L and N.
import { z } from "zod";
import { UsageError } from "../core/errors.js";
import { MAX_SHARDS, validateShardSpec, type ShardSpec } from "./shard-spec.js";
import { count, sha256 } from "./fields.js";

export { MAX_SHARDS, parseShardSpec, validateShardSpec, type ShardSpec } from "./shard-spec.js";

/** A range of physical lines: `lines` lines from `first_line` (1-based); `lines` may be 0. */
export type LineRange = Readonly<Pick<ManifestShard, "first_line" | "lines">>;

/** The line range of shard `k` of `n` over an input of `inputLines` physical lines. */
export function shardRange(shard: ShardSpec, inputLines: number): LineRange {
  const { k, n } = validateShardSpec(shard);
  if (!Number.isSafeInteger(inputLines) || inputLines < 0) throw new UsageError("the input's line count must be a non-negative integer");
  const total = BigInt(inputLines);
  const start = (BigInt(k) * total) / BigInt(n);
  const end = (BigInt(k + 1) * total) / BigInt(n);
  return { first_line: Number(start) + 1, lines: Number(end - start) };
}

/**
 * `run.shard` of a sharded run's manifest: which shard (k of n), the range of the input's
 * physical lines it covered, the input's whole line count, and the SHA-256 of the range's bytes
 * (its lines with their terminators). The whole input's SHA-256 is `run.input_sha256`.
 */
export const ManifestShardSchema = z.strictObject({
  k: count,
  n: z.int().min(1).max(MAX_SHARDS),
  first_line: z.int().min(1),
  lines: count,
  input_lines: count,
  range_sha256: sha256,
});

/** `run.shard` of a sharded run's manifest. */
export type ManifestShard = z.infer<typeof ManifestShardSchema>;

/**
 * Why a recorded shard is not the one its numbers define (k < n, the range `shardRange` gives
 * for k, n and input_lines), or null when it is.
 */
export function shardInconsistency(shard: ManifestShard): string | null {
  if (shard.k >= shard.n) return `shard k ${shard.k} is not below n ${shard.n}`;
  const expected = shardRange(shard, shard.input_lines);
  if (expected.first_line !== shard.first_line || expected.lines !== shard.lines) {
    return `shard ${shard.k}/${shard.n} of ${shard.input_lines} lines must cover ${describeRange(expected)}, not ${describeRange(shard)}`;
  }
  return null;
}

/** `lines 3-5`, `line 3`, or `no lines (before line 3)`, for messages. */
export function describeRange(range: LineRange): string {
  if (range.lines === 0) return `no lines (before line ${range.first_line})`;
  if (range.lines === 1) return `line ${range.first_line}`;
  return `lines ${range.first_line}-${range.first_line + range.lines - 1}`;
}
