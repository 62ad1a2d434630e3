// The one summary line `little-canary screen` prints on stderr at the end of every finished run
// (the warning line of a canary failure is the verb's, src/verbs/screen.ts). Data in, one line out.
import { batchExitCode, type BatchState, type BatchSummary } from "../src/verbs/screen.js";
import { plural } from "./plural.js";

/** The order states are named in the summary line: from the good outcome to the ones that need a look. */
const SUMMARY_ORDER: readonly BatchState[] = ["pass", "flag", "block", "degraded", "unexercised"];

/**
 * The summary line of a finished batch, with the document's own counts under its state words
 * (only the states that occur) and the exit code with what it means:
 * `screen: 5 items: pass=2 block=2 degraded=1; exit 2 (1 item not fully screened)`.
 */
export function formatScreenSummary(summary: Pick<BatchSummary, "total" | "counts">): string {
  const { total, counts } = summary;
  const code = batchExitCode(summary);
  const states = SUMMARY_ORDER.filter((state) => counts[state] > 0).map((state) => `${state}=${counts[state]}`);
  const notScreened = counts.degraded + counts.unexercised;
  const detected = counts.block + counts.flag;
  const why =
    total === 0
      ? "no items in input"
      : code === 2
        ? `${plural(notScreened, "item")} not fully screened: degraded or unexercised`
        : code === 1
          ? `${plural(detected, "item")} blocked or flagged`
          : "every item passed";
  return `screen: ${plural(total, "item")}${states.length > 0 ? `: ${states.join(" ")}` : ""}; exit ${code} (${why})\n`;
}
