// What a CI report says about one screened item or ingested record: where it is in the input,
// which rule it broke (none for a pass), its hashes and a label for its id. A report never
// carries the item's text, and an id is shown only when it is short and made of characters that
// mean nothing to any report format (see `idLabel`); any other id is named by its SHA-256, since
// ids come from the same untrusted input as the text.
import { sha256Hex } from "../core/hash.js";
import type { BatchItem, HoldReason, ManifestRecord } from "../documents/schemas.js";
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

function batchRule(item: BatchItem): ReportRule | null {
  switch (item.state) {
    case "pass":
      return null;
    case "block":
      return item.verdict?.blocked_by === "structural_filter" ? REPORT_RULES.blockStructural : REPORT_RULES.blockCanary;
    case "flag":
      return REPORT_RULES.flagCanary;
    case "degraded":
      return item.error !== undefined ? REPORT_RULES.checkError : REPORT_RULES.degraded;
    case "unexercised":
      return REPORT_RULES.unexercised;
  }
}

/** The report item of one screened batch item, read from line `line` of the input. */
export function reportItemFromBatch(item: BatchItem, line: number): ReportItem {
  return { index: item.index, line, rule: batchRule(item), outcome: item.state, sha256: item.sha256, id: idLabel(item.id) };
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

/** The rule of a held record: the rule of its first hold reason (the reasons come in a fixed order, the weightiest first). */
function heldRule(record: ManifestRecord): ReportRule | null {
  const first = record.hold_reasons[0];
  if (first === undefined) return null;
  if (first !== "blocked") return HOLD_RULES[first];
  const structural = record.segments.some((segment) => segment.state === "block" && segment.verdict?.blocked_by === "structural_filter");
  return structural ? REPORT_RULES.blockStructural : REPORT_RULES.blockCanary;
}

/** The report item of one manifest record (held records break a rule; admitted ones pass), read from line `line`. */
export function reportItemFromRecord(record: ManifestRecord, line: number): ReportItem {
  const outcome = record.admission === "admitted" ? "admitted" : `held (${record.hold_reasons.join(", ")})`;
  return { index: record.index, line, rule: heldRule(record), outcome, sha256: record.sha256, id: idLabel(record.id, record.id_sha256) };
}

/** The one-line message of a result: position, id label, outcome and rule; never the item's text. */
export function resultMessage(item: ReportItem): string {
  const id = item.id === null ? "" : ` (id ${item.id})`;
  const rule = item.rule === null ? "" : `: ${item.rule.summary}`;
  return `item ${item.index}${id} ${item.outcome}${rule}`;
}
