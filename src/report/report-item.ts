// What a CI report says about one screened item or ingested record: where it is in the input, which
// rule it broke (none for a pass), its hashes and a label for its id, never its text. Ids come from
// the same untrusted input as the text, so one is shown only when it is plain (see `idLabel`).
// A report format (SARIF, JUnit) says only what an item's entry is and what frames them all:
// ci-reports.ts spools each item's entry, as the item finishes, to a scratch file beside the
// report (memory bounded by one entry), and frames the document around them once the run is over.
import type { CanonicalFrame } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import type { BatchItem, HoldReason, ManifestRecord } from "../documents/schemas.js";
import type { VerdictJson } from "../documents/verdict-schema.js";
import { REPORT_RULES, type ReportRule } from "./rules.js";

/** One item or record as the reports see it. */
export interface ReportItem {
  /** 0-based position among the input's records (the batch or manifest `index`). */
  readonly index: number;
  /** 1-based line of the input file it was read from (blank lines count). */
  readonly line: number;
  /** The broken rule, or null for an item that passed (admitted). */
  readonly rule: ReportRule | null;
  /** The batch state (`block`, `flag`, …) or the manifest admission and reasons, in words. */
  readonly outcome: string;
  /** SHA-256 of the item's text (empty for a malformed record, which has none). */
  readonly sha256: string;
  /** A safe label for the item's id, or null when it has none (see `idLabel`). */
  readonly id: string | null;
  /**
   * Where the structural layer matched, at most MAX_REPORT_MATCHES: the reason, its fixed
   * explanation, and code-point offsets `[start, end)` into one segment's text. Never the text.
   */
  readonly matches: readonly ReportMatch[];
  /**
   * True when the item's rule is a detection but a part of it was not (fully) screened (screen:
   * a block in the item's labels while its text's canary call failed). The run then did not
   * screen every text, which SARIF's invocation says.
   */
  readonly unscreenedPart?: boolean;
  /**
   * True when the finding is in the item's labels, not its text (screen: the id, source and
   * metadata material decided the item); its matches' offsets are then into that material.
   */
  readonly inLabels?: boolean;
}

/** One structural match as the reports name it. */
export interface ReportMatch {
  readonly reason: string;
  readonly explanation: string;
  /** The manifest segment's `index` (ingest), or the window's index in the verdict's `segments` (screen; 0 for a text screened whole). */
  readonly segment: number;
  /** Code-point offsets `[start, end)` into that segment's (or window's) text. */
  readonly start: number;
  readonly end: number;
}

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

/** Matches a report item carries, at most (a record can have many segments). */
const MAX_REPORT_MATCHES = 12;

/** Appends the structural matches of one verdict; `segment` is the manifest segment's index, or null for a batch item's verdict. */
function verdictMatches(verdict: VerdictJson | null | undefined, into: ReportMatch[], segment: number | null): void {
  if (verdict === null || verdict === undefined) return;
  for (const layer of verdict.layers) {
    for (const m of layer.matches ?? []) {
      // A manifest segment screened in windows: offsets move from the window to the segment.
      const shift = segment === null ? 0 : (verdict.segments?.[m.segment]?.start ?? 0);
      for (const l of m.locations) {
        if (into.length >= MAX_REPORT_MATCHES) return;
        into.push({ reason: m.reason, explanation: m.explanation, segment: segment ?? m.segment, start: l.start + shift, end: l.end + shift });
      }
    }
  }
}

/** Ids made only of these characters, at most 100 of them, are shown as they are. */
const PLAIN_ID = /^[A-Za-z0-9._@+/-]{1,100}$/;

/**
 * The label of an id in a report: the id itself when it is plain (letters, digits and `._@+/-`,
 * at most 100), otherwise `sha256:` and the first 16 hex digits of its SHA-256. No escaping
 * rule of any output format can then be reached by an id's content.
 */
export function idLabel(id: string | null, idSha256?: string | null): string | null {
  if (id !== null && PLAIN_ID.test(id)) return id;
  const digest = idSha256 ?? (id === null ? null : sha256Hex(id));
  return digest === null ? null : `sha256:${digest.slice(0, 16)}`;
}

/** The rule of each hold reason; `blocked` is split by what blocked it (see heldRule). */
const HOLD_RULES: Readonly<Record<Exclude<HoldReason, "blocked">, ReportRule>> = {
  malformed: REPORT_RULES.malformed,
  over_budget: REPORT_RULES.overBudget,
  flagged: REPORT_RULES.flagCanary,
  degraded: REPORT_RULES.degraded,
  unexercised: REPORT_RULES.unexercised,
  error: REPORT_RULES.checkError,
  incomplete: REPORT_RULES.incomplete,
};

/** The block rule: structural when the structural filter blocked, else the canary's. */
const blockRule = (structural: boolean): ReportRule => (structural ? REPORT_RULES.blockStructural : REPORT_RULES.blockCanary);

/**
 * The rule of a flag, by what found it. In mode `advisory` nothing is blocked: a structural match
 * or a strong canary finding is a flag (advisory severity `high`), and keeps the rule and level of
 * what found it rather than reading as weaker canary evidence. In the other modes those block, so
 * a flag there is weaker canary evidence (severity `medium` or `low`).
 */
function flagRule(verdicts: ReadonlyArray<VerdictJson | null | undefined>): ReportRule {
  const structural = verdicts.some((v) => v?.layers.some((layer) => layer.name === "structural_filter" && layer.status === "blocked") === true);
  if (structural) return REPORT_RULES.blockStructural;
  const strong = verdicts.some((v) => v?.advisory.flagged === true && v.advisory.severity === "high");
  return strong ? REPORT_RULES.blockCanary : REPORT_RULES.flagCanary;
}

/** The rule of a screened batch item: a batch state read as the hold reason it stands for. */
function batchRule(item: BatchItem): ReportRule | null {
  if (item.state === "pass") return null;
  if (item.state === "block") return blockRule(item.verdict?.blocked_by === "structural_filter");
  if (item.state === "flag") return flagRule([item.verdict]);
  return HOLD_RULES[item.state === "degraded" && item.error !== undefined ? "error" : item.state];
}

/** What the reports learn of a batch item from its parts (screen/check-item.ts CheckedItem). */
export interface BatchItemParts {
  /** A part of the item was not (fully) screened (hasUnscreenedPart). */
  readonly unscreenedPart: boolean;
  /** Whose verdict the item carries. */
  readonly decidedBy: "text" | "labels";
}

/** The report item of one screened batch item, read from line `line` of the input. */
export function reportItemFromBatch(item: BatchItem, line: number, parts: BatchItemParts = { unscreenedPart: false, decidedBy: "text" }): ReportItem {
  const matches: ReportMatch[] = [];
  verdictMatches(item.verdict, matches, null);
  const rule = batchRule(item);
  const partly = parts.unscreenedPart && rule !== null && rule.kind === "detection" ? { unscreenedPart: true } : {};
  const labels = parts.decidedBy === "labels" && rule !== null ? { inLabels: true } : {};
  return { index: item.index, line, rule, outcome: item.state, sha256: item.sha256, id: idLabel(item.id), matches, ...partly, ...labels };
}

/** The rule of a held record: the rule of its first hold reason (the reasons come in a fixed order, the weightiest first). */
function heldRule(record: ManifestRecord): ReportRule | null {
  const first = record.hold_reasons[0];
  if (first === undefined) return null;
  if (first === "flagged") return flagRule(record.segments.filter((segment) => segment.state === "flag").map((segment) => segment.verdict));
  if (first !== "blocked") return HOLD_RULES[first];
  return blockRule(record.segments.some((segment) => segment.state === "block" && segment.verdict?.blocked_by === "structural_filter"));
}

/**
 * Hold reasons that say a segment's screening failed or did not run (the canary errored, timed
 * out, was unreachable or disabled), as a batch item's degraded or unexercised part does.
 * `incomplete` alone is not one: segments left unchecked once the record was held were not needed.
 */
const UNSCREENED_HOLD_REASONS: ReadonlySet<HoldReason> = new Set<HoldReason>(["degraded", "unexercised", "error"]);

/** The report item of one manifest record (held records break a rule; admitted ones pass), read from line `line`. */
export function reportItemFromRecord(record: ManifestRecord, line: number): ReportItem {
  const basis = record.admission_basis === "allowlist" ? " (allowlist)" : "";
  const outcome = record.admission === "admitted" ? `admitted${basis}` : `held (${record.hold_reasons.join(", ")})`;
  const matches: ReportMatch[] = [];
  for (const segment of record.segments) verdictMatches(segment.verdict, matches, segment.index);
  const rule = heldRule(record);
  // A detection in a record with a segment not screened counts as not fully screened, as in screen.
  const partly =
    rule !== null && rule.kind === "detection" && record.hold_reasons.some((reason) => UNSCREENED_HOLD_REASONS.has(reason)) ? { unscreenedPart: true } : {};
  return { index: record.index, line, rule, outcome, sha256: record.sha256, id: idLabel(record.id, record.id_sha256), matches, ...partly };
}

/** Distinct reasons named in a message, at most. */
const MESSAGE_REASONS = 3;

/**
 * The one-line message of a result: position, id label, outcome and rule, then each structural
 * reason (the first three) with where it first matched and its explanation; never the item's text.
 */
export function resultMessage(item: ReportItem): string {
  const id = item.id === null ? "" : ` (id ${item.id})`;
  const rule = item.rule === null ? "" : `: ${item.rule.summary}`;
  const named = new Map<string, ReportMatch>();
  for (const m of item.matches) if (!named.has(m.reason) && named.size < MESSAGE_REASONS) named.set(m.reason, m);
  // A finding in the labels is said to be there, and its offsets to be into their material, so
  // that nobody looks for it in the text (and finds nothing to fix).
  const where = item.inLabels === true ? "id, source and metadata material" : null;
  const place = (m: ReportMatch): string => (where === null ? `segment ${m.segment}` : where);
  const reasons = [...named.values()].map((m) => ` ${m.reason} (${place(m)}, code points ${m.start}-${m.end}): ${m.explanation}`).join("");
  const outcome = where === null ? item.outcome : `${item.outcome} (found in the item's id, source or metadata, not in its text)`;
  const partly = item.unscreenedPart === true ? " Part of the item was not screened (its canary check failed or did not run)." : "";
  return `item ${item.index}${id} ${outcome}${rule}${reasons}${partly}`;
}
