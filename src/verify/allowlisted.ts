// Allow-listed admissions as verify reports them: how many a manifest records, and the problem
// a consumer who refuses them (`verify --no-allowlisted`) gets. The count is read from the
// manifest's counts, which the recount ties to its records (a manifest whose records and
// counts disagree already has `counts_mismatch`), so the verifier reports the same number
// from the head whether the records were streamed or held.
import { isInt, isObj, own } from "./_values.js";
import type { VerifyProblem } from "./problems.js";

/** `counts.allowlisted` of a manifest (its head or the whole document), or 0. */
export function allowlistedAdmissions(manifest: unknown): number {
  if (!isObj(manifest)) return 0;
  const counts = own(manifest, "counts");
  const n = isObj(counts) ? own(counts, "allowlisted") : undefined;
  return isInt(n) && n > 0 ? n : 0;
}

/** When the caller refuses them (`refuse`), `count` allow-listed admissions become one problem. */
export function refuseAllowlisted(refuse: boolean | undefined, count: number, problems: VerifyProblem[]): void {
  if (refuse !== true || count === 0) return;
  problems.push({
    code: "allowlisted_admission",
    message: `${count} record${count === 1 ? " was" : "s were"} admitted by an ingest allowlist (refused by --no-allowlisted)`,
  });
}
