// The flags of `little-canary ingest`, for commander: what the program needs to define the
// command and its --help, cheap to import. What they configure is in ingest-options.ts.
import { Option, type Command } from "commander";
import type { ShardSpec } from "../src/documents/shard-spec.js";
import { DEFAULT_MAX_CANARY_FAILURES } from "../src/verbs/defaults.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg, shardArg, singleValue, type CanaryFlags } from "./flags.js";
import { addReportFlags, type ReportFlags } from "./report-flags.js";

export interface IngestFlags extends CanaryFlags, ReportFlags {
  manifest: string;
  export?: string;
  overwrite?: boolean;
  json?: boolean;
  segmentChars?: number;
  segmentOverlap?: number;
  maxSegments?: number;
  maxItemBytes?: number;
  maxItems?: number;
  maxTotalBytes?: number;
  maxMetadataKeys?: number;
  maxMetadataValueChars?: number;
  concurrency: number;
  /** Seconds to wait for another run's publication lock on the same manifest (default 0). */
  waitLock?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
  /** Hold a record whose id repeats an earlier record's id. */
  uniqueIds?: boolean;
  /** `--cache PATH` (a string) or `--no-cache` (false). */
  cache?: string | false;
  /** `--shard K/N`: only the K-th (0-based) of N contiguous line ranges of the input. */
  shard?: ShardSpec;
  /** `--allow FILE`: the false-block allowlist. */
  allow?: string;
  /** `--manifest-version 1|2|3` (checked by commander's choices). */
  manifestVersion?: "1" | "2" | "3";
}

/** Adds every flag of ingest to `command` (named "ingest"), in --help order. */
export function addIngestFlags(command: Command): Command {
  command
    // A file named twice with different values is refused (singleValue): a wrapper's path cannot be replaced by arguments appended after it.
    .requiredOption("--manifest <path>", "where to write the manifest (written last)", singleValue())
    .option("--export <path>", "where to write the admitted records (written before the manifest)", singleValue())
    .option(
      "--overwrite",
      "replace an existing manifest/export: the old pair is removed as soon as the settings are valid, before the input is read or the canary asked, so any later refusal (input, canary, publication) leaves no pair rather than a stale one; an export of another manifest is refused",
    )
    .option("--json", "print the canonical manifest on stdout instead of the summary (the manifest file's bytes, then one newline)");
  addCanaryFlags(command, "full")
    .option("--segment-chars <n>", "code points per segment (strict/v1: 3500)", nonNegativeIntArg)
    .option("--segment-overlap <n>", "code points shared by consecutive segments (strict/v1: 500)", nonNegativeIntArg)
    .option("--max-segments <n>", "most segments per record, metadata included (strict/v1: 8)", nonNegativeIntArg)
    .option("--max-item-bytes <n>", "most UTF-8 bytes of one text (strict/v1: 65536; ceiling 67108864)", nonNegativeIntArg)
    .option("--max-items <n>", "most records (strict/v1: 1000; 0: no limit)", nonNegativeIntArg)
    .option(
      "--max-total-bytes <n>",
      "most UTF-8 bytes of all records together: texts, ids, sources and metadata (strict/v1: 8388608; 0: no limit)",
      nonNegativeIntArg,
    )
    .option("--max-metadata-keys <n>", "most metadata keys per record (strict/v1: 32)", nonNegativeIntArg)
    .option("--max-metadata-value-chars <n>", "most code points per metadata value (strict/v1: 1024)", nonNegativeIntArg)
    .option(
      "--concurrency <n>",
      "records checked at once (any value gives the same records, decisions and order; only latencies differ, unless the circuit breaker opens: see --max-canary-failures)",
      positiveIntArg,
      1,
    )
    .option("--wait-lock <seconds>", "wait up to SECONDS for another run's publication lock on the same paths (default: fail at once)", nonNegativeIntArg)
    .option(
      "--max-canary-failures <n>",
      "stop sending canary checks after N consecutive unreachable/timeout failures; the rest are held (0: never stop)",
      nonNegativeIntArg,
      DEFAULT_MAX_CANARY_FAILURES,
    )
    .option("--unique-ids", "hold (as malformed) a record whose id repeats an earlier record's id; without it a repeat is only warned about and counted")
    .option(
      "--cache <path>",
      "verdict cache (SQLite, created if missing): reuse stored verdicts of unchanged segments, store new ones as they complete",
      singleValue(),
    )
    .option("--no-cache", "do not use a verdict cache (the default; overrides an earlier --cache)")
    .option("--shard <K/N>", "check only the K-th (0-based) of N contiguous line ranges of FILE; join the shards with `index` (docs/shards.md)", shardArg)
    .option(
      "--allow <file>",
      "false-block allowlist: a JSON list of {sha256, scope, reason, by}; admits records held for detections only whose content hash is listed (docs/ingest.md)",
      singleValue(),
    )
    .addOption(
      new Option(
        "--manifest-version <n>",
        "manifest format: 3 (compact, records the structural rules' version; the default), or 2 or 1 for consumers pinned to little-canary-ingest-manifest/v2 or /v1 (docs/compatibility.md)",
      ).choices(["1", "2", "3"]),
    );
  return addReportFlags(
    command,
    "held record",
    "stdout still carries the summary (the canonical manifest with --json)",
    "a held record's id only by its sha256\n(the manifest keeps only the digest of a held record's id)",
  );
}
