// The flags of `little-canary screen`, for commander: what the program needs to define the
// command and its --help, cheap to import.
import type { Command } from "commander";
import { DEFAULT_MAX_CANARY_FAILURES } from "../src/verbs/defaults.js";
import type { ScreenOptions } from "../src/verbs/screen.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg, singleValue } from "./flags.js";
import { addReportFlags } from "./report-flags.js";

/** The flags of screen, as the `screen` verb takes them. */
export type ScreenFlags = Omit<ScreenOptions, "io" | "signal" | "input">;

/** Adds every flag of screen to `command` (named "screen"), in --help order. */
export function addScreenFlags(command: Command): Command {
  addCanaryFlags(command, "full")
    .option("--fail-closed", "deny (safe:false) items whose behavioural coverage failed or did not run")
    .option("--max-items <n>", "most items accepted (0: no limit)", nonNegativeIntArg, 1000)
    .option("--max-item-bytes <n>", "most UTF-8 bytes of one item's text (ceiling 67108864)", nonNegativeIntArg, 65536)
    .option("--max-total-bytes <n>", "most UTF-8 bytes of all items together: texts, ids, sources and metadata (0: no limit)", nonNegativeIntArg, 8388608)
    .option("--max-metadata-keys <n>", "most metadata keys per item (as ingest's strict/v1: 32)", nonNegativeIntArg, 32)
    .option("--max-metadata-value-chars <n>", "most code points per metadata value (as ingest's strict/v1: 1024)", nonNegativeIntArg, 1024)
    .option("--scratch-dir <dir>", "where the scratch files go: a copy of stdin, the items until the end (default: $TMPDIR, else the OS temp dir)")
    .option(
      "--cache <path>",
      "verdict cache (SQLite, created if missing): reuse stored verdicts of unchanged items, store new ones as they complete",
      singleValue(),
    )
    .option("--no-cache", "do not use a verdict cache (the default; overrides an earlier --cache)")
    .option(
      "--concurrency <n>",
      "pipeline checks run at once (any value gives the same items, states and order; only latencies differ, unless the circuit breaker opens: see --max-canary-failures)",
      positiveIntArg,
      1,
    )
    .option(
      "--max-canary-failures <n>",
      "stop sending canary checks after N consecutive unreachable/timeout failures; the rest are degraded (0: never stop)",
      nonNegativeIntArg,
      DEFAULT_MAX_CANARY_FAILURES,
    );
  return addReportFlags(
    command,
    "item",
    "stdout still carries the JSON batch document",
    "an id only when it is plain (letters, digits,\n._@+/-, at most 100), else its sha256",
  );
}
