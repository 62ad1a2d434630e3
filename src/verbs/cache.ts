// `cacheStats` / `cachePrune`: the library calls behind `little-canary cache stats|prune`. Open
// the named cache (which must exist: these verbs never create one), report or prune, close.
// Messages name the CLI's flags, since these verbs are what the CLI calls.
import { resolve } from "node:path";
import { UsageError } from "../core/errors.js";
import { VerdictCache, type CacheStats } from "../cache/verdict-cache.js";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Milliseconds of a duration such as `30d`, `12h`, `90m`, `45s` or `2w` (a non-negative integer
 * and one unit). Throws UsageError naming `flag` otherwise.
 */
export function parseDuration(text: string, flag = "--older-than"): number {
  const match = /^(\d{1,9})([smhdw])$/.exec(typeof text === "string" ? text.trim() : "");
  if (match === null) throw new UsageError(`${flag} must be a whole number and a unit (s, m, h, d or w), for example 30d or 12h`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** Options of `cacheStats`. */
export interface CacheStatsOptions {
  /** The cache file (relative to `cwd`). */
  readonly cache: string;
  /** Directory a relative path is resolved against (default the process's). */
  readonly cwd?: string;
}

/** Options of `cachePrune`: at least one of `olderThan` and `identity`. */
export interface CachePruneOptions extends CacheStatsOptions {
  /** Remove entries checked longer ago than this (a duration such as `30d`, or milliseconds). */
  readonly olderThan?: string | number;
  /** Remove entries of this identity key (as `cache stats` lists it). */
  readonly identity?: string;
  /** The clock ages are measured against (default the system clock). */
  readonly clock?: () => Date;
}

/** What `cachePrune` did. */
export interface CachePruneResult {
  readonly path: string;
  readonly removed: number;
  readonly remaining: number;
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

/** `cache prune`: removes entries by age and/or identity from an existing cache file. */
export function cachePrune(options: CachePruneOptions): CachePruneResult {
  if (options.olderThan === undefined && options.identity === undefined) {
    throw new UsageError("cache prune needs --older-than DURATION or --identity KEY (or both); nothing was removed");
  }
  const olderThan = typeof options.olderThan === "string" ? parseDuration(options.olderThan) : options.olderThan;
  if (options.identity !== undefined && !/^[0-9a-f]{64}$/.test(options.identity)) {
    throw new UsageError("--identity must be an identity key as `cache stats` lists it (64 lowercase hex digits)");
  }
  const path = pathOf(options);
  const cache = VerdictCache.open(path, { mustExist: true, ...(options.clock ? { clock: options.clock } : {}) });
  try {
    const removed = cache.prune({
      ...(olderThan !== undefined ? { olderThan } : {}),
      ...(options.identity !== undefined ? { identityKey: options.identity } : {}),
    });
    return { path, removed, remaining: cache.stats().entries };
  } finally {
    cache.close();
  }
}
