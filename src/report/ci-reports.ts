// The CI reports a run was asked for (`--sarif`, `--junit`, `--github`), fed one item at a time in
// input order and written once the run's result is final: each file atomically, the GitHub
// summary appended to the runner's file. Paths are checked and spools created before the input is
// read, so a bad report path refuses the run before anything is checked.
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { appendNoFollow, appendTargetProblem } from "../core/append.js";
import { refuseToReplaceOtherFile } from "../core/replace-guard.js";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { refuseSharedFiles, specialFileKind, type RunFile } from "../core/file-identity.js";
import { stageFileAtomic, type StagedFile } from "../publish/atomic-write.js";
import { frameDocument } from "../publish/framed-document.js";
import { ScratchFile } from "../publish/scratch-file.js";
import { GithubReport, type OutcomeCounts } from "./github.js";
import { junitFormat } from "./junit.js";
import type { ReportFormat, ReportItem, ReportRun } from "./report-item.js";
import { artifactUri, sarifFormat } from "./sarif.js";
import { displayText } from "../core/display-text.js";

/** Where GitHub Actions output goes: the annotation lines (`write`: the CLI's stderr) and the job summary file ($GITHUB_STEP_SUMMARY, or null). */
type GithubOutput = Pick<GithubReport, "write"> & { readonly stepSummary: string | null };

/** Which CI reports to write. */
export interface CiReportOptions {
  /** Where the SARIF 2.1.0 log goes (resolved against `cwd`). */
  readonly sarif?: string | null;
  /** Where the JUnit XML report goes (resolved against `cwd`). */
  readonly junit?: string | null;
  /** GitHub Actions output: annotations and the job summary. */
  readonly github?: GithubOutput | null;
  /** The clock of the reports' start and end times (read when they are opened and written); defaults to the system clock. */
  readonly clock?: () => Date;
}

/** What the reports say about the run as a whole: ReportRun's total and properties, and for the summary: */
export interface CiRunFacts extends Pick<ReportRun, "total">, Partial<Pick<ReportRun, "properties">> {
  /** `screen` or `ingest`: names the report's suite and summary. */
  readonly command: string;
  /** Items by outcome, for the summary (e.g. the batch counts). */
  readonly counts: OutcomeCounts;
}

/**
 * Creates a report's spool; a directory that cannot hold it, or a report path that is itself a
 * directory (it could never be renamed over), refuses the run, naming the flag and the file.
 */
async function opened<T>(flag: string, path: string, create: () => Promise<T>): Promise<T> {
  const existing = await stat(path).catch(() => null);
  if (existing?.isDirectory()) throw new UsageError(`${flag}: cannot write the report ${displayText(path)} (it is a directory)`);
  // Renaming the report over /dev/null or a named pipe would put a regular file in its place.
  const special = await specialFileKind(path);
  if (special !== null) throw new UsageError(`${flag}: cannot write the report ${displayText(path)} (it is ${special}, not a regular file)`);
  try {
    return await create();
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
    const code = cause?.code ?? (error as NodeJS.ErrnoException).code ?? "error";
    // ENOENT with the directory there is a file system that makes no files (/proc): say that instead.
    const missing = code === "ENOENT" && (await stat(dirname(path)).catch(() => null)) === null;
    const why = missing
      ? "its directory does not exist"
      : code === "ENOENT"
        ? "no file can be created in its directory (ENOENT)"
        : code === "EACCES" || code === "EPERM"
          ? "its directory is not writable"
          : code;
    throw new UsageError(`${flag}: cannot write the report ${displayText(path)} (${why})`);
  }
}

/** True when at least one report was asked for. */
export function wantsReports(options: CiReportOptions | undefined): boolean {
  return options !== undefined && (options.sarif != null || options.junit != null || options.github != null);
}

/** A report file of the run: the flag that asked for it, where it goes, its format and the spool of its entries. */
interface ReportFile {
  readonly flag: string;
  readonly path: string;
  readonly format: ReportFormat;
  readonly entries: ScratchFile;
}

/** Bytes of an existing report path read to tell what it holds. */
const SNIFF_BYTES = 4096;

/**
 * An existing `--sarif` or `--junit` path is replaced only when it holds a report of that format
 * (looksLikeReport) or nothing but white space, so a slip of the argument cannot replace another
 * run's manifest, export, index or verdict cache, a package.json or a pom.xml. A file that cannot
 * be read cannot be told to be a report, so it is refused (the atomic write would replace another
 * user's file in a shared directory without a word); anything but a regular file is left to the
 * write, which names it.
 */
async function refuseToReplaceOther(flag: string, path: string): Promise<void> {
  await refuseToReplaceOtherFile(path, {
    flag: `${flag}:`,
    what: flag === "--sarif" ? "a SARIF log" : "a JUnit XML report",
    hint: "(remove it or name another file)",
    headBytes: SNIFF_BYTES,
    isEarlierOutput: (head) => looksLikeReport(flag, head),
    unreadable: "refuse",
    notAFile: "replace",
  });
}

/**
 * Whether the first bytes of a file are a report of `flag`'s format, in UTF-8 or UTF-16 (with its
 * byte order mark): a SARIF log is a JSON object naming the SARIF schema, or beginning with its
 * `runs`, or holding both `version` 2.1.0 and `runs` (keys in any order); a JUnit report is XML
 * whose root element, after any declaration, comment or DOCTYPE, is `testsuites` or `testsuite`.
 */
function looksLikeReport(flag: string, bytes: Buffer): boolean {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = bytes.subarray(2, bytes.length - (bytes.length % 2)).toString("utf16le");
  else if (bytes[0] === 0xfe && bytes[1] === 0xff)
    text = Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)))
      .swap16()
      .toString("utf16le");
  else text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  const head = text.trimStart();
  if (head === "") return true;
  if (flag === "--sarif") {
    return (
      head.startsWith("{") &&
      (/"\$schema"\s*:\s*"[^"]*sarif/i.test(head) ||
        /^\{\s*"runs"\s*:\s*\[/.test(head) ||
        (/"version"\s*:\s*"2\.1\.0[^"]*"/.test(head) && /"runs"\s*:/.test(head)))
    );
  }
  return /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*<testsuites?\b/.test(head);
}

/** The reports of one run. */
export class CiReports {
  private constructor(
    private readonly files: readonly ReportFile[],
    private readonly github: GithubReport | null,
    private readonly stepSummary: string | null,
    private readonly input: string,
    private readonly clock: () => Date,
    private readonly startedAt: Date,
  ) {}

  /**
   * Opens the requested reports for a run over `input` (a path as given, or null for standard
   * input). Refuses, naming the flag, a report path (or the job summary) that is one file with
   * the input, a protected output or another report (core/file-identity.ts).
   */
  static async open(options: CiReportOptions, input: string | null, cwd: string, protectedPaths: readonly string[] = []): Promise<CiReports> {
    const clock = options.clock ?? (() => new Date());
    const startedAt = clock();
    const label = input === null || input === "-" ? "stdin" : input;
    const wanted: readonly [string, string | null | undefined, ReportFormat][] = [
      ["--sarif", options.sarif, sarifFormat(artifactUri(input))],
      ["--junit", options.junit, junitFormat(label)],
    ];
    const targets = wanted.flatMap(([flag, path, format]) => (path == null ? [] : [{ flag, path: resolve(cwd, path), format }]));
    await refuseSharedFiles(
      cwd,
      [["the input", input === "-" ? null : input], ...protectedPaths.map((path): RunFile => ["an output of the run", path])],
      [...targets.map(({ flag, path }): RunFile => [flag, path]), ["$GITHUB_STEP_SUMMARY", options.github?.stepSummary]],
    );
    for (const { flag, path } of targets) await refuseToReplaceOther(flag, path);
    const files: ReportFile[] = [];
    try {
      for (const { flag, path, format } of targets)
        files.push({ flag, path, format, entries: await opened(flag, path, () => ScratchFile.create(path, format.label)) });
    } catch (error) {
      for (const file of files) await file.entries.remove();
      throw error;
    }
    const elsewhere = [
      ...(options.github?.stepSummary == null ? [] : ["the job summary"]),
      ...wanted.flatMap(([flag, path]) => (path == null ? [] : [`the ${flag === "--sarif" ? "SARIF" : "JUnit"} report ${displayText(path)}`])),
    ];
    const github = options.github == null ? null : new GithubReport(label, options.github.write, elsewhere);
    const stepSummary = options.github?.stepSummary == null ? null : resolve(cwd, options.github.stepSummary);
    return new CiReports(files, github, stepSummary, label, clock, startedAt);
  }

  /** Adds the next item (in input order). */
  async add(item: ReportItem): Promise<void> {
    for (const { format, entries } of this.files) {
      const text = format.entry(item);
      if (text !== "") await entries.append(text);
    }
    this.github?.add(item);
  }

  /**
   * Writes every report: the files atomically, then the annotations' last line and the job
   * summary. Every file is written in full beside its target before any replaces its target, so a
   * write that fails (a full disk, a directory gone) leaves every earlier report as it was, never
   * a new SARIF log beside last run's JUnit. The renames come one after the other: a rename that
   * fails after another succeeded (a target made a directory in that instant) still mixes them.
   */
  async finish(facts: CiRunFacts): Promise<void> {
    const run = { total: facts.total, properties: { command: facts.command, ...facts.properties }, startedAt: this.startedAt, endedAt: this.clock() };
    const staged: { readonly flag: string; readonly path: string; readonly file: StagedFile }[] = [];
    // A failure names the flag, the file and the system's code.
    const named = (flag: string, path: string, error: unknown): LittleCanaryError => {
      const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.name : "error");
      return new LittleCanaryError("io", `${flag}: could not write the report ${displayText(path)} (${code})`, { cause: error });
    };
    try {
      for (const { flag, path, format, entries } of this.files) {
        await entries.seal();
        const document = await frameDocument(format.frame(run), entries);
        const file = await stageFileAtomic(path, document).catch((error: unknown) => {
          throw named(flag, path, error);
        });
        staged.push({ flag, path, file });
      }
      for (const { flag, path, file } of staged) {
        await file.commit().catch((error: unknown) => {
          throw named(flag, path, error);
        });
      }
    } finally {
      // A committed file has nothing left to discard: only those not yet in place are removed.
      for (const { file } of staged) await file.discard();
    }
    if (this.github !== null) {
      this.github.finish();
      if (this.stepSummary !== null) {
        // The summary is a view of what the annotations and files already say: a runner file
        // that cannot be appended to is worth a warning, not a failed gate.
        const problem = appendTargetProblem(this.stepSummary);
        if (problem !== null) this.github.write(`warning: could not append the job summary to $GITHUB_STEP_SUMMARY (it ${problem})\n`);
        else {
          try {
            // Never through a symlink: one swapped in after the start-up check cannot redirect it.
            await appendNoFollow(this.stepSummary, this.github.summary(`${facts.command} ${this.input}`, facts.counts));
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code ?? "error";
            this.github.write(`warning: could not append the job summary to $GITHUB_STEP_SUMMARY (${code})\n`);
          }
        }
      }
    }
  }

  /** Deletes the spools (never throws); call it whatever happened. */
  async remove(): Promise<void> {
    for (const file of this.files) await file.entries.remove();
  }
}
