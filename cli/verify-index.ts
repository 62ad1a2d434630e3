// `little-canary verify --index INDEX [--expect-index-sha256 HEX] [--json]`: the index of a
// sharded run and every pair it lists checked again (`verifyShardIndex`). Exit codes as for a
// pair: 0 consistent (and the pin matches), 1 any problem, 3 unreadable files or usage.
import { UsageError } from "../src/core/errors.js";
import { verifyShardIndex } from "../src/verify/shard-index.js";
import { VERIFY_EXIT } from "./exit-codes.js";
import { printProblems, printUnreadable, verifyIndexReport } from "./index-output.js";
import { writeOut, type CliIo } from "./io.js";

/** The flags of `verify` that concern an index (the pair flags must be absent). */
export interface VerifyIndexFlags {
  index?: string;
  expectIndexSha256?: string;
  manifest?: string;
  export?: string;
  expectManifestSha256?: string;
  json?: boolean;
}

export async function runVerifyIndex(flags: VerifyIndexFlags, io: CliIo): Promise<number> {
  if (flags.index === undefined) throw new UsageError("--expect-index-sha256 needs --index");
  if (flags.manifest !== undefined || flags.export !== undefined || flags.expectManifestSha256 !== undefined) {
    throw new UsageError("--index checks every pair it lists: do not combine it with --manifest, --export or --expect-manifest-sha256");
  }
  const result = await verifyShardIndex({ index: flags.index, expectIndexSha256: flags.expectIndexSha256 ?? null, cwd: io.cwd });
  if (!result.readable) {
    // Nothing could be verified as a whole: no report on stdout, one line per unreadable file.
    await printUnreadable(result.problems, io);
    return VERIFY_EXIT.unreadable;
  }
  if (flags.json) await writeOut(io.stdout, verifyIndexReport(result));
  else if (result.consistent) {
    const pinned = result.pinned ? ", matches the pin" : ", not pinned";
    await writeOut(
      io.stdout,
      `verify: consistent (index sha256=${result.indexSha256}${pinned}; ${result.shards} shard${result.shards === 1 ? "" : "s"} verified)\n`,
    );
  } else await printProblems("verify", result.problems, io);
  return result.consistent ? VERIFY_EXIT.consistent : VERIFY_EXIT.problems;
}
