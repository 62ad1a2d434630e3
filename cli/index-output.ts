// What `index` and `verify --index` print: a summary line on success, the problems (at most
// DEFAULT_PROBLEMS_SHOWN, the rest counted) otherwise, and unreadable files on stderr; and the
// exit code of `verify --index`.
import type { BuildShardIndexResult } from "../src/verbs/build-shard-index.js";
import type { VerifyShardIndexResult } from "../src/verify/shard-index.js";
import type { ShardIndexProblem } from "../src/verify/shard-pairs.js";
import { DEFAULT_PROBLEMS_SHOWN } from "../src/verify/problems.js";
import { VERIFY_EXIT } from "./exit-codes.js";
import { writeOut, type CliIo } from "./io.js";

const UNREADABLE = new Set(["index_unreadable", "shard_unreadable"]);

/** Writes each unreadable-file problem to stderr as `error: …`; returns the other problems. */
export async function printUnreadable(problems: readonly ShardIndexProblem[], io: CliIo): Promise<ShardIndexProblem[]> {
  const others: ShardIndexProblem[] = [];
  for (const problem of problems) {
    if (UNREADABLE.has(problem.code)) await writeOut(io.stderr, `error: ${problem.message}\n`);
    else others.push(problem);
  }
  return others;
}

/** `<what>: N problems<after>` and the first problems, one per line, on stdout. */
export async function printProblems(what: string, problems: readonly ShardIndexProblem[], io: CliIo, after = ""): Promise<void> {
  const shown = problems.slice(0, DEFAULT_PROBLEMS_SHOWN);
  const lines = shown.map((problem) => `  - [${problem.code}] ${problem.message}`);
  const hidden = problems.length - shown.length;
  if (hidden > 0) lines.push(`  ... and ${hidden} more problem${hidden === 1 ? "" : "s"} not listed (--json lists all)`);
  await writeOut(io.stdout, `${what}: ${problems.length} problem${problems.length === 1 ? "" : "s"}${after}\n${lines.join("\n")}\n`);
}

/** The summary of a written index. */
export function indexSummary(result: BuildShardIndexResult): string {
  const index = result.index;
  if (index === null) return "";
  const { records_total, counts } = index.totals;
  return (
    `index: ${index.shard_count} shard${index.shard_count === 1 ? "" : "s"} of ${index.input_lines} input lines, ` +
    `${records_total} records, ${counts.admitted} admitted, ${counts.held} held\n` +
    `index: ${result.indexPath} sha256=${result.indexSha256}\n`
  );
}

/**
 * Prints what `verify --index` found and returns its exit code: as for a pair, 0 consistent (and
 * the pin matches), 1 any problem, 3 unreadable files.
 */
export async function printVerifyIndex(result: VerifyShardIndexResult, json: boolean, io: CliIo): Promise<number> {
  if (!result.readable) {
    // Nothing could be verified as a whole: no report on stdout, one line per unreadable file.
    await printUnreadable(result.problems, io);
    return VERIFY_EXIT.unreadable;
  }
  const { consistent, indexSha256, pinned, shards, problems, notes } = result;
  if (json) await writeOut(io.stdout, `${JSON.stringify({ consistent, index_sha256: indexSha256, pinned, shards, problems, notes })}\n`);
  else {
    if (consistent) {
      const pin = pinned ? ", matches the pin" : ", not pinned";
      await writeOut(io.stdout, `verify: consistent (index sha256=${indexSha256}${pin}; ${shards} shard${shards === 1 ? "" : "s"} verified)\n`);
    } else await printProblems("verify", problems, io);
    // As for one pair: facts that are not problems, after the verdict.
    for (const note of notes) await writeOut(io.stdout, `note: ${note.message}\n`);
  }
  return consistent ? VERIFY_EXIT.consistent : VERIFY_EXIT.problems;
}
