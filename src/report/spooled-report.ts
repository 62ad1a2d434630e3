// A CI report file as a run writes it: each item's entry appended, as the item finishes, to a
// scratch file beside the report (memory bounded by one entry), and the document framed around
// the entries once the run is over, hashed and copied out by the caller. A format (SARIF, JUnit)
// says only what an item's entry is and what frames them; the spooling is done once, here.
import type { CanonicalFrame } from "../core/canonical.js";
import { frameDocument, type FramedDocument } from "../publish/framed-document.js";
import { ScratchFile } from "../publish/scratch-file.js";
import type { ReportItem } from "./report-item.js";

/** Run-level facts a report is framed with (never item text). */
export interface ReportRun {
  /** Items or records read. */
  readonly total: number;
  /** Extra run properties (the command, the manifest's SHA-256 …): strings and numbers only. */
  readonly properties: Readonly<Record<string, string | number>>;
  /** When the run started and ended. */
  readonly startedAt: Date;
  readonly endedAt: Date;
}

/** One report format: the entry of each item, then the frame around them all. */
export interface ReportFormat {
  /** Scratch files of this format are named with it (`.<report>.<random>.<label>.spool`). */
  readonly label: string;
  /** The text appended for `item`, the next in input order, separator included; "" adds nothing. */
  entry(item: ReportItem): string;
  /** The document's text before and after the entries, once every item was added. */
  frame(run: ReportRun): CanonicalFrame;
}

/** A report being written: `add` each item in order, then `finish`; `remove` whatever happened. */
export class SpooledReport {
  private constructor(
    private readonly entries: ScratchFile,
    private readonly format: ReportFormat,
  ) {}

  /** An empty report in `format` whose entries spool beside `target`. */
  static async create(target: string, format: ReportFormat): Promise<SpooledReport> {
    return new SpooledReport(await ScratchFile.create(target, format.label), format);
  }

  /** Appends the entry of the next item. */
  async add(item: ReportItem): Promise<void> {
    const text = this.format.entry(item);
    if (text !== "") await this.entries.append(text);
  }

  /** Seals the entries and frames the document around them. */
  async finish(run: ReportRun): Promise<FramedDocument> {
    await this.entries.seal();
    return frameDocument(this.format.frame(run), this.entries);
  }

  /** Deletes the spool (never throws). */
  remove(): Promise<void> {
    return this.entries.remove();
  }
}
