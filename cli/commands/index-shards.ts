// `little-canary index --out INDEX M1:E1 M2:E2 ...`: every shard's pair verified, the shards
// checked to tile one input exactly once, then the canonical index written atomically.
// Arguments → `buildShardIndex` (src/shard-index/build.ts) → print → INDEX_EXIT.
import { Command } from "commander";
import { buildShardIndex } from "../../src/shard-index/build.js";
import { INDEX_EXIT } from "../exit-codes.js";
import { indexSummary, printProblems, printUnreadable } from "../index-output.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";

export interface IndexFlags {
  out: string;
  json?: boolean;
}

export async function runIndex(pairs: readonly string[], flags: IndexFlags, io: CliIo): Promise<number> {
  const result = await buildShardIndex({ out: flags.out, pairs, cwd: io.cwd });
  if (result.written) {
    const report = flags.json ? `${JSON.stringify({ written: true, index_path: result.indexPath, index_sha256: result.indexSha256 })}\n` : indexSummary(result);
    await writeOut(io.stdout, report);
    return INDEX_EXIT.written;
  }
  await printUnreadable(result.problems, io);
  if (flags.json) await writeOut(io.stdout, `${JSON.stringify({ written: false, index_path: result.indexPath, problems: result.problems })}\n`);
  else await printProblems("index", result.problems, io, "; nothing written");
  return result.readable ? INDEX_EXIT.problems : INDEX_EXIT.unreadable;
}

export function indexCommand(io: CliIo, state: RunState): Command {
  return new Command("index")
    .description("Verify the pairs of a sharded ingest run (ingest --shard) and write one index over them.")
    .argument("<pairs...>", "each shard's MANIFEST:EXPORT (a manifest path, a colon, its export path)")
    .requiredOption("--out <path>", "where to write the index (atomically, only when every check passes)")
    .option("--json", "print a JSON report")
    .addHelpText(
      "after",
      `
Every pair is verified (as verify --manifest M --export E), and the shards must share one
input (SHA-256 and line count), one shard count N, one policy and one canary identity, and
cover every K from 0 to N-1 once. Paths in the index are relative to its directory.
Exit codes: 0 index written; 1 any problem (nothing written); 3 unreadable files or usage.

Example:
  little-canary index --out index.json m0.json:e0.json m1.json:e1.json m2.json:e2.json
  little-canary verify --index index.json --expect-index-sha256 "$(sha256sum index.json | cut -d' ' -f1)"`,
    )
    .action(async (pairs: string[], flags: IndexFlags) => {
      state.exitCode = await runIndex(pairs, flags, io);
    });
}
