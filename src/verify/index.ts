/**
 * The `little-canary/verify` entry: verification of a published pair without the rest of the
 * library (no pipeline, no canary client, no server). `verifyFiles` is the easy path: it streams
 * both files strictly, so files larger than memory verify, checks the pin and returns every
 * problem as data. `verifyExport`/`verifyManifestOnly` take the documents; pass them as the
 * bytes you read (Uint8Array) so duplicate keys are seen.
 */
export { verifyFiles, type VerifyFilesOptions, type VerifyFilesResult } from "./verify-files.js";
export { verifyExport, verifyManifestOnly, type VerifyOptions } from "./verify-export.js";
/** The index of a sharded run: `verifyShardIndex` re-checks it and every pair it lists (docs/shards.md). */
export { verifyShardIndex, type VerifyShardIndexOptions, type VerifyShardIndexResult } from "./shard-index.js";
export { SHARD_INDEX_PROBLEM_CODES, type ShardIndexProblem, type ShardIndexProblemCode } from "./shard-pairs.js";
// The whole-document caps: for documents passed in memory, and for pairs verifyFiles must read whole.
export { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_VALUES } from "../core/read-document.js";
export {
  problemsToShow,
  STRUCTURAL_PROBLEM_CODES,
  VERIFY_PROBLEM_CODES,
  type VerifyNote,
  type VerifyNoteCode,
  type VerifyProblem,
  type VerifyProblemCode,
} from "./problems.js";
