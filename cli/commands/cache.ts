// `little-canary cache stats --cache PATH [--json]` and `little-canary cache prune --cache PATH
// [--older-than DURATION] [--identity KEY] [--max-bytes SIZE]`: flags → `cacheStats` / `cachePrune`
// (src/verbs/cache.ts) → a table (stats; JSON with --json) or JSON (prune) on stdout. Exit 0
// on success; 2 for usage errors, a missing cache file, or a file that is not a verdict cache
// (REFUSED_EXIT in cli/exit-codes.ts). The library is imported when a subcommand runs.
import { Command } from "commander";
import { UsageError } from "../../src/core/errors.js";
import { quotedText } from "../../src/core/display-text.js";
import { CACHE_HELP, CACHE_PRUNE_HELP, CACHE_STATS_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";

interface CacheFlags {
  cache: string;
}

interface StatsFlags extends CacheFlags {
  json?: boolean;
}

interface PruneFlags extends CacheFlags {
  olderThan?: string;
  identity?: string;
  maxBytes?: string;
}

function sub(io: CliIo, name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .requiredOption("--cache <path>", "the verdict cache file (must exist)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
}

/** Defines `cache` and its subcommands `stats` and `prune`, each running one library call. */
export function define(io: CliIo, state: RunState): Command {
  const stats = sub(io, "stats", "Print the cache's entries, per-identity counts, time range and size as a table (JSON with --json).")
    .option("--json", "print the statistics as one JSON object (every field, each identity in full)")
    .addHelpText("after", CACHE_STATS_HELP)
    .action(async (flags: StatsFlags) => {
      const [{ cacheStats }, { cacheStatsTable }] = await Promise.all([import("../../src/verbs/cache.js"), import("../cache-stats-output.js")]);
      const result = cacheStats({ cache: flags.cache, cwd: io.cwd });
      await writeOut(io.stdout, flags.json ? `${JSON.stringify(result)}\n` : cacheStatsTable(result));
      state.exitCode = 0;
    });
  const prune = sub(io, "prune", "Remove cached verdicts by age and/or identity, or the oldest down to a size; print {path, removed, remaining} as JSON.")
    .option("--older-than <duration>", "remove entries checked longer ago than DURATION (e.g. 30d, 12h, 90m)")
    .option("--identity <key>", "remove entries of this identity key (as `cache stats` lists it)")
    .option("--max-bytes <size>", "then remove the oldest checked entries until the file is at most SIZE (e.g. 500MB, 2GiB; at least 64KiB), and shrink it")
    .addHelpText("after", CACHE_PRUNE_HELP)
    .action(async (flags: PruneFlags) => {
      const { cachePrune } = await import("../../src/verbs/cache.js");
      const result = cachePrune({
        cache: flags.cache,
        cwd: io.cwd,
        ...(flags.olderThan !== undefined ? { olderThan: flags.olderThan } : {}),
        ...(flags.identity !== undefined ? { identity: flags.identity } : {}),
        ...(flags.maxBytes !== undefined ? { maxBytes: flags.maxBytes } : {}),
        onWarning: (message) => void io.stderr.write(`warning: ${message}\n`),
      });
      await writeOut(io.stdout, `${JSON.stringify(result)}\n`);
      state.exitCode = 0;
    });
  return (
    new Command("cache")
      .description("Inspect or prune a verdict cache (the SQLite file given to ingest/screen --cache).")
      .addCommand(stats)
      .addCommand(prune)
      // Not commander's "too many arguments for 'cache'" for a misspelt subcommand: name what is wrong.
      .allowExcessArguments()
      .action((_options: unknown, { args: [given] }: Command) => {
        const wrong = given === undefined ? "cache needs a subcommand" : `cache has no subcommand ${quotedText(given)}`;
        throw new UsageError(`${wrong}: use stats or prune (see little-canary cache --help)`);
      })
      .addHelpText("after", CACHE_HELP)
  );
}
