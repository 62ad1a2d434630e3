// `little-canary index --out INDEX M1:E1 M2:E2 ...`: every shard's pair verified, the shards
// checked to tile one input exactly once, then the canonical index written atomically.
// Arguments → `buildShardIndex` (src/verbs/build-shard-index.ts) → print → INDEX_EXIT. The library
// is imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import { UsageError } from "../../src/core/errors.js";
import { INDEX_EXIT } from "../exit-codes.js";
import { INDEX_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";

export interface IndexFlags {
  out: string;
  json?: boolean;
}

/** Builds the index of a sharded run, prints the result and returns the exit code. */
export async function run(pairs: readonly string[], flags: IndexFlags, io: CliIo): Promise<number> {
  const [{ buildShardIndex }, { indexSummary, printProblems, printUnreadable }] = await Promise.all([
    import("../../src/verbs/build-shard-index.js"),
    import("../index-output.js"),
  ]);
  // An empty --out is refused in the flag's own words, not the library option's.
  if (flags.out === "") throw new UsageError("index: --out must not be empty");
  const result = await buildShardIndex({ out: flags.out, pairs, cwd: io.cwd });
  if (result.written) {
    const report = flags.json ? `${JSON.stringify({ written: true, index_path: result.indexPath, index_sha256: result.indexSha256 })}\n` : indexSummary(result);
    await writeOut(io.stdout, report);
    return INDEX_EXIT.written;
  }
  // Unreadable files go to stderr, each once: the text report lists the other problems only.
  const listed = await printUnreadable(result.problems, io);
  if (flags.json) await writeOut(io.stdout, `${JSON.stringify({ written: false, index_path: result.indexPath, problems: result.problems })}\n`);
  else if (listed.length > 0) await printProblems("index", listed, io, "; nothing written");
  else await writeOut(io.stderr, "index: nothing written\n");
  return result.readable ? INDEX_EXIT.problems : INDEX_EXIT.unreadable;
}

/** Defines `index` with its arguments, flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  return new Command("index")
    .description("Verify the pairs of a sharded ingest run (ingest --shard) and write one index over them.")
    .argument("<pairs...>", "each shard's MANIFEST:EXPORT (a manifest path, a colon, its export path)")
    .requiredOption("--out <path>", "where to write the index (atomically, only when every check passes)")
    .option("--json", "print a JSON report")
    .addHelpText("after", INDEX_HELP)
    .action(async (pairs: string[], flags: IndexFlags) => {
      state.exitCode = await run(pairs, flags, io);
    });
}
