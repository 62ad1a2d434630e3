// `cacheStats` / `cachePrune`: the library calls behind `little-canary cache stats|prune`, on a cache
// that must exist. Messages name the CLI's flags, since these verbs are what the CLI calls.
import { resolve } from "node:path";
import { UsageError } from "../core/errors.js";
import { MIN_CACHE_FILE_BYTES, VerdictCache, type CacheStats } from "../cache/verdict-cache.js";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration such as `30d`, `12h`, `90m`, `45s` or `2w`; throws UsageError naming `flag` otherwise. */
export function parseDuration(text: string, flag = "--older-than"): number {
  // Any number of digits: a long one is too long, which the message below says, not malformed.
  const match = /^(\d+)([smhdw])$/.exec(typeof text === "string" ? text.trim() : "");
  if (match === null) throw new UsageError(`${flag} must be a whole number and a unit (s, m, h, d or w), for example 30d or 12h`);
  return checkedDuration(Number(match[1]) * (UNIT_MS[match[2] as string] as number), flag);
}

/**
 * Longest age `--older-than` takes: 100,000 days (about 274 years), older than any entry and well
 * inside what a date can hold (a longer one made "now minus it" an invalid date).
 */
const MAX_DURATION_MS = 100_000 * UNIT_MS.d!;

/** `ms` when it is a duration prune can use (0 to MAX_DURATION_MS), else a UsageError naming `flag`. */
function checkedDuration(ms: number, flag: string): number {
  // A number of digits past what a double holds is Infinity: too long, like any past the limit.
  if (Number.isNaN(ms) || ms < 0) throw new UsageError(`${flag} must be a duration of 0 or more`);
  if (ms > MAX_DURATION_MS) throw new UsageError(`${flag} is too long: at most 100000d (about 274 years)`);
  return ms;
}

/** Bytes per unit of a size: decimal (KB = 1000) and binary (KiB = 1024), upper or lower case. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** Bytes of a size such as `500MB`, `2GiB` or `1048576`, at least MIN_CACHE_FILE_BYTES; throws UsageError naming `flag` otherwise. */
export function parseByteSize(text: string, flag = "--max-bytes"): number {
  // Any number of digits: a long one is too large, which the message below says, not malformed.
  const match = /^(\d+)\s?([a-z]{1,3})?$/i.exec(typeof text === "string" ? text.trim() : "");
  const unit = SIZE_UNITS[(match?.[2] ?? "b").toLowerCase()];
  const bytes = match === null || unit === undefined ? Number.NaN : Number(match[1]) * unit;
  // Well formed but past what a size can be here: say so, rather than that it is not a size.
  if (match !== null && unit !== undefined && !Number.isSafeInteger(bytes))
    throw new UsageError(`${flag} is too large: at most ${Number.MAX_SAFE_INTEGER} bytes (8 PiB)`);
  if (!Number.isSafeInteger(bytes)) {
    throw new UsageError(`${flag} must be a whole number of bytes, optionally with a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB), for example 500MB or 2GiB`);
  }
  if (bytes < MIN_CACHE_FILE_BYTES) throw new UsageError(`${flag} must be at least 64KiB (an empty cache file takes about 40 KiB)`);
  return bytes;
}

/** Options of `cacheStats`. */
export interface CacheStatsOptions {
  /** The cache file (relative to `cwd`). */
  readonly cache: string;
  /** Directory a relative path is resolved against (default the process's). */
  readonly cwd?: string;
}

/** Options of `cachePrune`: at least one of `olderThan`, `identity` and `maxBytes`. */
export interface CachePruneOptions extends CacheStatsOptions {
  /** Remove entries checked longer ago than this (a duration such as `30d`, or milliseconds). */
  readonly olderThan?: string | number;
  /** Remove entries of this identity key (as `cache stats` lists it). */
  readonly identity?: string;
  /** Then remove the oldest checked entries until the file holds at most this many bytes (`500MB`, or a number). */
  readonly maxBytes?: string | number;
  /** The clock ages are measured against (default the system clock). */
  readonly clock?: () => Date;
  /** Told when the file is still larger than `maxBytes` after the prune (another process held it open). */
  readonly onWarning?: (message: string) => void;
}

const pathOf = (options: CacheStatsOptions): string => {
  if (typeof options.cache !== "string" || options.cache === "") throw new UsageError("--cache PATH is required");
  return resolve(options.cwd ?? process.cwd(), options.cache);
};

/** `cache stats`: entries, per-identity counts, time range and size of an existing cache file. */
export function cacheStats(options: CacheStatsOptions): CacheStats {
  const cache = VerdictCache.open(pathOf(options), { readonly: true });
  try {
    return cache.stats();
  } finally {
    cache.close();
  }
}

/**
 * `cache prune`: removes entries by age and/or identity from an existing cache file, then, with
 * `maxBytes`, the oldest until the file fits (so `--older-than` with `--max-bytes` does both).
 * Returns the entries removed and remaining, and with `maxBytes` the file's `size_bytes` after it.
 */
export function cachePrune(options: CachePruneOptions) {
  if (options.olderThan === undefined && options.identity === undefined && options.maxBytes === undefined) {
    throw new UsageError("cache prune needs --older-than DURATION or --identity KEY (or both), or --max-bytes SIZE; nothing was removed");
  }
  const olderThan =
    options.olderThan === undefined
      ? undefined
      : typeof options.olderThan === "string"
        ? parseDuration(options.olderThan)
        : checkedDuration(options.olderThan, "--older-than");
  const maxBytes = typeof options.maxBytes === "string" ? parseByteSize(options.maxBytes) : options.maxBytes;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < MIN_CACHE_FILE_BYTES)) {
    throw new UsageError(`--max-bytes must be a whole number of bytes, at least ${MIN_CACHE_FILE_BYTES}`);
  }
  if (options.identity !== undefined && !/^[0-9a-f]{64}$/.test(options.identity)) {
    throw new UsageError("--identity must be an identity key as `cache stats` lists it (64 lowercase hex digits)");
  }
  const path = pathOf(options);
  const cache = VerdictCache.open(path, { mustExist: true, ...(options.clock ? { clock: options.clock } : {}) });
  try {
    let removed = olderThan === undefined && options.identity === undefined ? 0 : cache.prune({ olderThan, identityKey: options.identity });
    if (maxBytes === undefined) return { path, removed, remaining: cache.stats().entries };
    const bySize = cache.pruneToSize(maxBytes);
    removed += bySize.removed;
    if (bySize.sizeBytes > maxBytes) {
      options.onWarning?.(
        `the cache file is still ${bySize.sizeBytes} bytes, above --max-bytes ${maxBytes}: another process held it open, so its write-ahead log could not be emptied; run cache prune again once it is closed`,
      );
    }
    return { path, removed, remaining: cache.stats().entries, size_bytes: bySize.sizeBytes };
  } finally {
    cache.close();
  }
}
