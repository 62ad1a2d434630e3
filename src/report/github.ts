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

/** What GitHub is shown of some results: the first `cap` of them, detections before coverage failures. */
class FirstShown {
  private readonly detections: Array<{ line: number; text: string }> = [];
  private readonly coverage: Array<{ line: number; text: string }> = [];
  /** Results past the cap, counted (the held lists keep at most `cap` each). */
  private dropped = 0;

  constructor(private readonly cap: number) {}

  add(kind: "detection" | "coverage", line: number, text: () => string): void {
    const held = kind === "detection" ? this.detections : this.coverage;
    if (held.length < this.cap) held.push({ line, text: text() });
    else this.dropped++;
  }

  /** The results shown (at most `cap`, detections first), and how many are not. */
  shown(): { shown: Array<{ line: number; text: string }>; notShown: number } {
    const detections = this.detections.length;
    const shown = [...this.detections, ...this.coverage.slice(0, Math.max(0, this.cap - detections))];
    return { shown, notShown: this.dropped + detections + this.coverage.length - shown.length };
  }
}

/** The texts of `shown`, in input order. */
const inInputOrder = (shown: Array<{ line: number; text: string }>): string[] => shown.sort((a, b) => a.line - b.line).map((s) => s.text);

/**
 * Collects what GitHub is shown of one run: the first annotations of each level (the cap is per
 * level, as GitHub's is, so many flags never hide the first blocks) and the summary's rows, in
 * both the first detections before the first coverage failures, so that a run whose canary
 * failed on many items still shows what was caught. The annotations are printed by `finish`,
 * once the run's result is final: a run refused after its checks shows no finding on GitHub for
 * documents that do not exist.
 */
export class GithubReport {
  private readonly annotations = new Map<string, FirstShown>();
  private readonly rows = new FirstShown(SUMMARY_ROWS);

  constructor(
    private readonly file: string,
    /** Receives the annotation lines (and warnings about the summary). */
    readonly write: (line: string) => void,
    /** Where else every result can be read (the SARIF report, the job summary), for the line counting those not annotated. */
    private readonly elsewhere: readonly string[] = [],
  ) {}

  /** Holds `item`'s annotation and summary row if it broke a rule, within the caps. */
  add(item: ReportItem): void {
    const rule = item.rule;
    if (rule === null) return;
    const level = this.annotations.get(rule.level) ?? new FirstShown(MAX_ANNOTATIONS_PER_LEVEL);
    this.annotations.set(rule.level, level);
    level.add(rule.kind, item.line, () => {
      const props = [`file=${escapeCommandProperty(this.file)}`, `line=${item.line}`, `title=${escapeCommandProperty(rule.id)}`];
      return `::${rule.level} ${props.join(",")}::${escapeCommandData(resultMessage(item))}\n`;
    });
    this.rows.add(rule.kind, item.line, () => {
      const id = item.id === null ? "" : escapeMarkdown(item.id);
      return `| ${item.line} | ${item.index} | ${id} | ${escapeMarkdown(item.outcome)} | ${escapeMarkdown(rule.id)} | ${item.sha256.slice(0, 16)} |`;
    });
  }

  /** Prints the annotations held, then the line counting the results not annotated, when there were any. */
  finish(): void {
    let notAnnotated = 0;
    const annotated: Array<{ line: number; text: string }> = [];
    for (const level of this.annotations.values()) {
      const { shown, notShown } = level.shown();
      annotated.push(...shown);
      notAnnotated += notShown;
    }
    for (const line of inInputOrder(annotated)) this.write(line);
    if (notAnnotated > 0) {
      const where = this.elsewhere.length === 0 ? "" : `; see ${this.elsewhere.join(" or ")}`;
      this.write(
        `little-canary: ${notAnnotated} more result${notAnnotated === 1 ? " was" : "s were"} not annotated (GitHub shows at most ${MAX_ANNOTATIONS_PER_LEVEL} errors and ${MAX_ANNOTATIONS_PER_LEVEL} warnings per step; detections are annotated first)${where}\n`,
      );
    }
  }

  /** The Markdown job summary: the run's counts and the first findings. */
  summary(title: string, counts: OutcomeCounts): string {
    const lines = [`### little-canary ${escapeMarkdown(title)}`, "", "| outcome | items |", "| --- | ---: |"];
    for (const [outcome, count] of Object.entries(counts)) lines.push(`| ${escapeMarkdown(outcome)} | ${count} |`);
    lines.push("");
    const { shown, notShown } = this.rows.shown();
    const rows = inInputOrder(shown);
    if (rows.length === 0) lines.push("No item broke a rule.");
    else {
      lines.push("| line | index | id | outcome | rule | sha256 |", "| ---: | ---: | --- | --- | --- | --- |", ...rows);
      if (notShown > 0) lines.push("", `${notShown} more not listed (detections are listed first).`);
    }
    return `${lines.join("\n")}\n\n`;
  }
}
