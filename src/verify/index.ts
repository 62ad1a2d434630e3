/**
 * The `little-canary/verify` entry: verification of a published pair without the rest of the
 * library (no pipeline, no canary client, no server). `verifyFiles` is the easy path: it reads
 * both files strictly (duplicate keys, UTF-8, size and memory bounds), checks the pin and
 * returns every problem as data. `verifyExport`/`verifyManifestOnly` take the documents; pass
 * them as the bytes you read (Uint8Array) so duplicate keys are seen.
 */
export { verifyFiles, type VerifyFilesOptions, type VerifyFilesResult } from "./verify-files.js";
export { verifyExport, verifyManifestOnly, type VerifyOptions } from "./verify-export.js";
export { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_VALUES } from "../core/read-document.js";
export {
  problemsToShow,
  STRUCTURAL_PROBLEM_CODES,
  VERIFY_PROBLEM_CODES,
  type VerifyProblem,
  type VerifyProblemCode,
} from "./problems.js";
