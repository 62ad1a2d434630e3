// The CI report settings of `screen` and `ingest` (sarif, junit, github), resolved into the
// report options: GitHub output is on when asked, or when GITHUB_ACTIONS is "true" and it was
// not turned off; its annotations go to the reporter, its job summary to GITHUB_STEP_SUMMARY.
import type { CiReportOptions } from "../report/ci-reports.js";
import type { Reporter, VerbIo } from "./reporter.js";

/** The report settings, as plain values. */
export interface ReportSettings {
  /** A SARIF 2.1.0 log to write. */
  sarif?: string;
  /** A JUnit XML report to write. */
  junit?: string;
  /** true, false, or undefined (decided by GITHUB_ACTIONS). */
  github?: boolean;
}

/** The report options the settings ask for. */
export function resolveReportSettings(settings: ReportSettings, io: Pick<VerbIo, "env"> & { readonly reporter: Pick<Reporter, "write"> }): CiReportOptions {
  const github = settings.github ?? io.env.GITHUB_ACTIONS === "true";
  const summary = io.env.GITHUB_STEP_SUMMARY;
  return {
    sarif: settings.sarif ?? null,
    junit: settings.junit ?? null,
    github: github ? { write: (text) => io.reporter.write(text), stepSummary: summary !== undefined && summary !== "" ? summary : null } : null,
  };
}
