// The CI report flags shared by `screen` and `ingest`: --sarif FILE, --junit FILE and
// --github / --no-github (on by itself under GitHub Actions, where GITHUB_ACTIONS=true).
import type { Command } from "commander";
import type { ReportSettings } from "../src/verbs/report-settings.js";
import { singleValue } from "./flags.js";

/** The parsed report flags. */
export type ReportFlags = ReportSettings;

/**
 * Adds --sarif, --junit, --github and --no-github, and their help paragraph; `stdout` says what
 * the command prints on stdout, which the reports leave as it is, and `idWords` how a report
 * names an item's id.
 */
export function addReportFlags(command: Command, what: string, stdout: string, idWords: string): Command {
  return command
    .option("--sarif <file>", `also write a SARIF 2.1.0 log: one result per ${what} that did not pass`, singleValue())
    .option("--junit <file>", `also write a JUnit XML report: one test case per ${what}`, singleValue())
    .option("--github", "also print GitHub annotations (stderr) and append a job summary (default under GITHUB_ACTIONS=true)")
    .option("--no-github", "no GitHub annotations or job summary, even under GitHub Actions")
    .addHelpText(
      "after",
      `
CI reports (docs/ci.md): --sarif and --junit are extra files, written atomically once the
run's result is final; GitHub annotations go to stderr. None of them changes stdout:
${stdout}.
${/^[aeiou]/.test(what) ? "An" : "A"} ${what} that was not screened (degraded, unexercised) is an error result in both reports,
never a pass. No text is written, and ${idWords}.`,
    );
}
