// Which shard of how many (`K/N`, 0-based K) and its checks, without the manifest's zod schema:
// the CLI parses `--shard` while it defines its flags, before it knows which command runs, so
// this stays free of zod (shard.ts re-exports it beside the schema and the line ranges).
import { UsageError } from "../core/errors.js";

/** The most shards one input may be cut into (the most pods of one Kubernetes Indexed Job). */
export const MAX_SHARDS = 100_000;

/** Which shard of how many: 0 ≤ k < n ≤ MAX_SHARDS. */
export interface ShardSpec {
  readonly k: number;
  readonly n: number;
}

const DECIMAL = /^(0|[1-9][0-9]{0,8})$/;

/**
 * Parses `K/N` (decimal digits, no sign, no leading zero, no spaces) into a shard; throws
 * UsageError naming `flag` for anything else, for N < 1 or N > MAX_SHARDS, and for K ≥ N.
 */
export function parseShardSpec(text: string, flag = "--shard"): ShardSpec {
  const parts = text.split("/");
  const [k, n] = parts;
  if (parts.length !== 2 || k === undefined || n === undefined || !DECIMAL.test(k) || !DECIMAL.test(n)) {
    throw new UsageError(`${flag} must be K/N with decimal integers, 0 <= K < N (K is 0-based, like JOB_COMPLETION_INDEX)`);
  }
  return validateShardSpec({ k: Number(k), n: Number(n) }, flag);
}

/** Checks a shard given as numbers; throws UsageError naming `flag` when it is not a valid shard. */
export function validateShardSpec(shard: ShardSpec, flag = "--shard"): ShardSpec {
  const { k, n } = shard;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_SHARDS) throw new UsageError(`${flag}: N must be an integer from 1 to ${MAX_SHARDS}`);
  if (!Number.isSafeInteger(k) || k < 0 || k >= n) {
    throw new UsageError(`${flag}: K must be an integer from 0 to N-1 (${n - 1}); K is 0-based, like JOB_COMPLETION_INDEX`);
  }
  return { k, n };
}
