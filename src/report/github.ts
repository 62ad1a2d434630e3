// GitHub Actions output of one screen or ingest run: `::error` / `::warning` workflow commands on
// stderr (stdout carries the JSON document; the runner reads both) and a Markdown job summary
// appended to $GITHUB_STEP_SUMMARY. Every value is escaped, so an input path cannot end a command
// or start another; never item text, and ids only as safe labels.
import { escapeUnsafeChars } from "../core/display-text.js";
import { resultMessage, type ReportItem } from "./report-item.js";

/** GitHub shows at most this many annotations of each level (errors, warnings) of a step. */
const MAX_ANNOTATIONS_PER_LEVEL = 10;
/** Rows of findings a job summary lists (the rest are counted). */
const SUMMARY_ROWS = 50;

/**
 * Escapes a workflow command's message: `%`, CR and LF as the runner decodes them, and every
 * other control, separator or bidi character (an ESC in an input path) as a `\uXXXX` escape:
 * the runner has no escape for them, and a raw one would rewrite the terminal of whoever reads
 * the step's log.
 */
export function escapeCommandData(text: string): string {
  return escapeUnsafeChars(text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A"));
}

/** Escapes a workflow command's property value: as the message, and also `:` and `,`. */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

/** `text` safe inside Markdown table cells and headings: HTML and Markdown punctuation and `@` mentions escaped, line breaks and pipes removed. */
export function escapeMarkdown(text: string): string {
  return (
    text
      .replace(/[\r\n\t\u0000-\u001f\u007f]/g, " ")
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;")
      .replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => `\\${c}`)
      // An `@name` would be rendered as a mention of a GitHub user or team (last: its `#` stays as it is).
      .replaceAll("@", "&#64;")
  );
}

/** Counts by outcome for the summary table. */
export type OutcomeCounts = Readonly<Record<string, number>>;

/**
 * Collects what GitHub is shown of one run: the first annotations of each level (the cap is per
 * level, as GitHub's is, so many flags never hide the first blocks) and the summary's rows. The
 * annotations are printed by `finish`, once the run's result is final: a run refused after its
 * checks shows no finding on GitHub for documents that do not exist.
 */
export class GithubReport {
  private readonly annotations: string[] = [];
  private readonly perLevel = new Map<string, number>();
  private notAnnotated = 0;
  private readonly rows: string[] = [];
  private notListed = 0;

  constructor(
    private readonly file: string,
    /** Receives the annotation lines (and warnings about the summary). */
    readonly write: (line: string) => void,
  ) {}

  /** Annotates `item` if it broke a rule and the cap allows; keeps its summary row. */
  add(item: ReportItem): void {
    if (item.rule === null) return;
    const shown = this.perLevel.get(item.rule.level) ?? 0;
    if (shown < MAX_ANNOTATIONS_PER_LEVEL) {
      this.perLevel.set(item.rule.level, shown + 1);
      const props = [`file=${escapeCommandProperty(this.file)}`, `line=${item.line}`, `title=${escapeCommandProperty(item.rule.id)}`];
      this.annotations.push(`::${item.rule.level} ${props.join(",")}::${escapeCommandData(resultMessage(item))}\n`);
    } else this.notAnnotated++;
    if (this.rows.length < SUMMARY_ROWS) {
      const id = item.id === null ? "" : escapeMarkdown(item.id);
      this.rows.push(
        `| ${item.line} | ${item.index} | ${id} | ${escapeMarkdown(item.outcome)} | ${escapeMarkdown(item.rule.id)} | ${item.sha256.slice(0, 16)} |`,
      );
    } else this.notListed++;
  }

  /** Prints the annotations held, then the line counting the results not annotated, when there were any. */
  finish(): void {
    for (const line of this.annotations) this.write(line);
    if (this.notAnnotated > 0) {
      this.write(
        `little-canary: ${this.notAnnotated} more result${this.notAnnotated === 1 ? " was" : "s were"} not annotated (GitHub shows at most ${MAX_ANNOTATIONS_PER_LEVEL} errors and ${MAX_ANNOTATIONS_PER_LEVEL} warnings per step); see the job summary or the SARIF report\n`,
      );
    }
  }

  /** The Markdown job summary: the run's counts and the first findings. */
  summary(title: string, counts: OutcomeCounts): string {
    const lines = [`### little-canary ${escapeMarkdown(title)}`, "", "| outcome | items |", "| --- | ---: |"];
    for (const [outcome, count] of Object.entries(counts)) lines.push(`| ${escapeMarkdown(outcome)} | ${count} |`);
    lines.push("");
    if (this.rows.length === 0) lines.push("No item broke a rule.");
    else {
      lines.push("| line | index | id | outcome | rule | sha256 |", "| ---: | ---: | --- | --- | --- | --- |", ...this.rows);
      if (this.notListed > 0) lines.push("", `${this.notListed} more not listed.`);
    }
    return `${lines.join("\n")}\n\n`;
  }
}
