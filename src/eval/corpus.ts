// Loading evaluation corpora and selecting the cases of a run. Files are read strictly and bounded.
// Case text is hostile: never echoed in an error (errors name the file, the case index or the id only).
import { readSmallFile } from "../core/read-at-most.js";
import { resolve } from "node:path";
import { z } from "zod";
import { errorCode, LittleCanaryError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import { parseJsonBytes } from "../core/parse-line.js";
import { truncateCodePoints } from "../core/codepoints.js";
import { asciiJson } from "../core/display-text.js";
import { isPlainObject } from "../core/guards.js";

/** A corpus file larger than this is refused before it is decoded. */
export const MAX_CORPUS_BYTES = 64 * 1024 * 1024;
/** Most cases in one run (all corpora together). */
export const MAX_CASES = 100_000;
const MAX_ID_CHARS = 200;
/** The documented stealth levels: a case outside them is refused, never left out of the breakdown. */
const MIN_STEALTH = 1;
const MAX_STEALTH = 5;
const MAX_LABEL_CHARS = 200;
/** Ids listed in an error message; the rest are counted. */
const MAX_IDS_IN_MESSAGE = 10;

export type Adjudication = "positive" | "benign_control";
export type CaseKind = "attack" | "benign";

/** Provenance keys of paired-probe cases, carried through to the results (never scored). */
const PROVENANCE_KEYS = ["source_case_id", "source_input_sha256", "paired_case_id", "source_expected_result"] as const;

/** One evaluation case: its prompt, whether it is an attack or benign, and its category. */
export type EvalCase = ReturnType<typeof toCase>;

export interface LoadedCorpora {
  /** Each file's path as the user gave it (recorded in the run header), its SHA-256 and how many cases it holds. */
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly cases: number }[];
  readonly cases: readonly EvalCase[];
}

/** A corpus or ids file could not be used; the run does not start. */
export class CorpusError extends LittleCanaryError {
  override readonly name = "CorpusError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("input_refused", message, options);
  }
}

// No lone surrogate: the text must be UTF-8 encodable without loss.
const wellFormed = (text: string): boolean => text.isWellFormed();
const label = z.string().max(MAX_LABEL_CHARS).refine(wellFormed);
const provenanceValue = z.union([z.string().max(MAX_LABEL_CHARS), z.number(), z.boolean(), z.null()]);

const CaseSchema = z.object({
  id: z.string().min(1).max(MAX_ID_CHARS).refine(wellFormed),
  prompt: z.string(),
  expected_safe: z.boolean(),
  category: label.optional(),
  goal: z.string().max(2000).optional(),
  stealth: z.number().int().min(MIN_STEALTH).max(MAX_STEALTH).optional(),
  failure_mode: z.string().max(2000).optional(),
  adjudication: z.enum(["positive", "benign_control"]).optional(),
  source_case_id: provenanceValue.optional(),
  source_input_sha256: provenanceValue.optional(),
  paired_case_id: provenanceValue.optional(),
  source_expected_result: provenanceValue.optional(),
});

/** A path as the user gave it, for messages: control and non-ASCII characters escaped. */
function shownPath(path: string): string {
  return asciiJson(path).slice(1, -1);
}

/** What a corpus file must hold, said when it holds something else. */
const CORPUS_SHAPE = "a corpus must be one JSON document: an array of cases or an object with a 'cases' array";
/** What an ids file must hold, likewise. */
const IDS_SHAPE = "an IDs file must be one JSON document: a list of case ID strings";

const NEWLINE = 0x0a;

/** Whether a line holds only JSON whitespace (spaces, tabs, carriage returns). */
function blank(line: Uint8Array): boolean {
  return line.every((unit) => unit === 0x20 || unit === 0x09 || unit === 0x0d);
}

/**
 * The 1-based line on which a second JSON value starts, when `bytes` look like JSON Lines: the
 * first non-blank line is a whole JSON value by itself and another non-blank line
 * follows. Null otherwise. Only whole lines are parsed, never echoed: the caller names the line.
 */
function jsonLinesSecondLine(bytes: Uint8Array): number | null {
  let start = 0;
  let line = 1;
  let firstSeen = false;
  // Bounded by the file (at most MAX_CORPUS_BYTES); only the first non-blank line is parsed.
  while (start < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    const text = bytes.subarray(start, end);
    if (!blank(text)) {
      if (firstSeen) return line;
      const parsed = parseJsonBytes(text);
      if (!parsed.ok) return null;
      firstSeen = true;
    }
    if (newline === -1) break;
    start = newline + 1;
    line++;
  }
  return null;
}

/** The strict JSON value of a whole file (read bounded; see readStrictDocument) and its SHA-256, or a CorpusError naming `what` and saying what it must hold (`shape`). */
async function readDocument(path: string, what: string, shape: string, options: LoadOptions): Promise<{ sha256: string; value: unknown }> {
  let bytes: Uint8Array;
  if (options.readFile === undefined) {
    // At most one byte past the limit is read, whatever the file is (/dev/zero, a pipe, a sparse
    // file of gigabytes), so memory is bounded by the bytes actually read.
    const read = await readSmallFile(resolve(options.cwd, path), MAX_CORPUS_BYTES, () => null);
    if ("unreadable" in read) throw new CorpusError(`${what}: cannot be read (${read.code ?? read.unreadable})`);
    if ("problem" in read) throw new CorpusError(`${what}: ${read.problem}`);
    bytes = read.bytes;
  } else {
    try {
      bytes = await options.readFile(resolve(options.cwd, path));
    } catch (error) {
      const code = errorCode(error);
      throw new CorpusError(`${what}: cannot be read${code !== null ? ` (${code})` : ""}`, { cause: error });
    }
  }
  if (bytes.length > MAX_CORPUS_BYTES) throw new CorpusError(`${what}: larger than ${MAX_CORPUS_BYTES} bytes`);
  const parsed = readStrictDocument(bytes);
  if (!parsed.ok) {
    if (parsed.code === "byte_order_mark") throw new CorpusError(`${what}: a byte order mark is not accepted; save the file as UTF-8 without BOM`);
    if (parsed.code === "invalid_utf8") throw new CorpusError(`${what}: not valid UTF-8`);
    if (parsed.code === "malformed_json") {
      // One case per line is the common mistake (the dev sets are JSON Lines): named, with the
      // line where the second value starts, so the fix is plain. No text of the file is shown.
      const second = jsonLinesSecondLine(bytes);
      const jsonLines =
        second === null
          ? ""
          : `; it looks like JSON Lines (a second JSON value starts on line ${second}), which eval does not read: put the values in one array (jq -s . turns JSON Lines into one)`;
      throw new CorpusError(`${what}: ${parsed.message}; ${shape}${jsonLines}`);
    }
    throw new CorpusError(`${what}: ${parsed.message}`);
  }
  if (parsed.loneSurrogate) throw new CorpusError(`${what}: contains an escaped lone surrogate`);
  return { sha256: sha256Hex(bytes), value: parsed.value };
}

function listIds(ids: readonly string[]): string {
  const shown = ids
    .slice(0, MAX_IDS_IN_MESSAGE)
    .map((id) => asciiJson(truncateCodePoints(id, 60)))
    .join(", ");
  return ids.length > MAX_IDS_IN_MESSAGE ? `${shown} and ${ids.length - MAX_IDS_IN_MESSAGE} more` : shown;
}

/**
 * A stealth level outside 1–5 (or not a whole number) is refused like any other malformed field,
 * naming the case by index and id (never its text), since a breakdown that quietly left the case
 * out would report levels that no longer add up to the run.
 */
function stealthProblem(raw: unknown, where: string): string {
  const record = isPlainObject(raw) ? raw : {};
  const id = typeof record["id"] === "string" && record["id"].isWellFormed() ? ` (id ${asciiJson(truncateCodePoints(record["id"], 60))})` : "";
  const value = record["stealth"];
  const got = typeof value === "number" && Number.isFinite(value) ? `, not ${value}` : "";
  return `${where}${id}: field 'stealth' must be a whole number from ${MIN_STEALTH} to ${MAX_STEALTH}${got}`;
}

/** A JSON value's type, as a message names it (never the value itself). */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "a boolean";
  return typeof value === "string" ? "a string" : "a number";
}

/** What zod's `expected` of an invalid_type issue asks for, in words. */
const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  boolean: "true or false",
  number: "a number",
  int: "a whole number",
  object: "an object",
  array: "an array",
  null: "null",
};

/**
 * The first schema issue of a case in words: the field, what it must be and what type it is
 * (`field 'prompt' must be a string, not a number`), or `must be an object` for the case itself.
 * Only the schema's own types, limits and options are named, never a value of the corpus.
 */
function caseProblem(issue: z.core.$ZodIssue | undefined, raw: unknown, where: string): string {
  const path = issue?.path ?? [];
  const subject = path.length === 0 ? `${where}:` : `${where}: field '${truncateCodePoints(path.map(String).join("."), 40)}'`;
  const found = path.reduce<unknown>((value, key) => (isPlainObject(value) && typeof key === "string" ? value[key] : undefined), raw);
  switch (issue?.code) {
    case "invalid_type": {
      const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
      return found === undefined ? `${subject} is missing (it must be ${expected})` : `${subject} must be ${expected}, not ${jsonType(found)}`;
    }
    case "invalid_union":
      // Only the provenance fields are unions: what each accepts is stated once, in the schema above.
      return `${subject} must be a string, a number, true or false, or null, not ${jsonType(found)}`;
    case "invalid_value":
      return `${subject} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "too_small":
      return issue.origin === "string" && Number(issue.minimum) === 1 ? `${subject} must not be empty` : `${subject} is too short`;
    case "too_big":
      return issue.origin === "string" ? `${subject} must hold at most ${issue.maximum} characters` : `${subject} is too large`;
    case "custom":
      // The one refinement of a case: text without a lone surrogate.
      return `${subject} is not well-formed Unicode (it holds a lone surrogate)`;
    default:
      return `${subject} is invalid`;
  }
}

function toCase(raw: unknown, corpusIndex: number, where: string) {
  const parsed = CaseSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.path.length === 1 && issue.path[0] === "stealth") throw new CorpusError(stealthProblem(raw, where));
    throw new CorpusError(caseProblem(issue, raw, where));
  }
  const c = parsed.data;
  if (!c.prompt.isWellFormed()) throw new CorpusError(`${where}: prompt is not well-formed Unicode`);
  if (c.adjudication === "positive" && c.expected_safe) throw new CorpusError(`${where}: adjudication 'positive' needs expected_safe false`);
  if (c.adjudication === "benign_control" && !c.expected_safe) throw new CorpusError(`${where}: adjudication 'benign_control' needs expected_safe true`);
  const provenance = Object.fromEntries(PROVENANCE_KEYS.flatMap((key) => (c[key] === undefined ? [] : [[key, c[key]] as const])));
  return Object.freeze({
    id: c.id,
    prompt: c.prompt,
    expectedSafe: c.expected_safe,
    kind: c.expected_safe ? "benign" : "attack",
    category: c.category ?? "uncategorized",
    goal: c.goal ?? "",
    stealth: c.stealth ?? 3,
    failureMode: c.failure_mode ?? "",
    adjudication: c.adjudication ?? null,
    provenance: Object.freeze(provenance),
    // Index of the corpus file (in load order) the case came from.
    corpusIndex,
  });
}

export interface LoadOptions {
  /** Relative paths resolve against this directory. */
  readonly cwd: string;
  readonly readFile?: (path: string) => Promise<Uint8Array>;
}

/** Loads every corpus in order; ids must be unique across all of them. */
export async function loadCorpora(paths: readonly string[], options: LoadOptions): Promise<LoadedCorpora> {
  if (paths.length === 0) throw new CorpusError("at least one --corpus file is required");
  const files: LoadedCorpora["files"][number][] = [];
  const cases: EvalCase[] = [];
  for (const [corpusIndex, path] of paths.entries()) {
    const what = `corpus ${corpusIndex + 1} (${shownPath(path)})`;
    const { sha256, value: document } = await readDocument(path, what, CORPUS_SHAPE, options);
    const list = Array.isArray(document) ? document : isPlainObject(document) && Array.isArray(document["cases"]) ? document["cases"] : null;
    if (list === null) throw new CorpusError(`${what}: must be a JSON array of cases or an object with a 'cases' array`);
    if (cases.length + list.length > MAX_CASES) throw new CorpusError(`corpora hold more than ${MAX_CASES} cases`);
    list.forEach((raw, index) => cases.push(toCase(raw, corpusIndex, `${what}, case ${index}`)));
    files.push({ path, sha256, cases: list.length });
  }
  // Where each id was first seen, so a clash names the two corpora (by number and path) it is in.
  const firstIn = new Map<string, number>();
  const duplicates = new Set<string>();
  const clashing = new Set<number>();
  for (const c of cases) {
    const first = firstIn.get(c.id);
    if (first === undefined) firstIn.set(c.id, c.corpusIndex);
    else {
      duplicates.add(c.id);
      clashing.add(first).add(c.corpusIndex);
    }
  }
  if (duplicates.size > 0) {
    const where = [...clashing].sort((a, b) => a - b).map((i) => `corpus ${i + 1} (${shownPath(paths[i] as string)})`);
    throw new CorpusError(`Corpora contain duplicate IDs: ${listIds([...duplicates])}, in ${where.join(" and ")}`);
  }
  return { files, cases };
}

/** The ids that come more than once in `ids`, each once, in the order they first repeat. */
function repeated(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const again = new Set<string>();
  for (const id of ids) (seen.has(id) ? again : seen).add(id);
  return [...again];
}

/** Reads an ids file: a JSON list of unique case-id strings. */
export async function loadIdsFile(path: string, options: LoadOptions) {
  const what = `IDs file (${shownPath(path)})`;
  const { sha256, value } = await readDocument(path, what, IDS_SHAPE, options);
  if (!Array.isArray(value) || value.length > MAX_CASES || !value.every((id) => typeof id === "string")) {
    throw new CorpusError(`IDs file must be a JSON list of case ID strings (--ids-file ${shownPath(path)})`);
  }
  const ids = value as string[];
  if (new Set(ids).size !== ids.length) throw new CorpusError(`IDs file contains duplicates: ${listIds(repeated(ids))} (--ids-file ${shownPath(path)})`);
  return { path, sha256, ids };
}

/**
 * The cases of the run: all loaded cases in file order, or exactly the ids of the ids file in its
 * order. A paired probe (cases with `adjudication`) is never mixed with ordinary cases, because
 * its counts are reported per pair type and must not be pooled into attack/benign rates.
 */
export function selectCases(loaded: LoadedCorpora, idsFile: { readonly ids: readonly string[]; readonly path?: string } | null): EvalCase[] {
  const byId = new Map(loaded.cases.map((c) => [c.id, c]));
  const unknown = idsFile?.ids.filter((id) => !byId.has(id)) ?? [];
  // The file named when the caller knows it, so the fix is plain: which list to correct.
  const listed = idsFile?.path === undefined ? "" : ` (--ids-file ${shownPath(idsFile.path)})`;
  if (unknown.length > 0) throw new CorpusError(`Unknown case IDs: ${listIds(unknown)}: no corpus given holds them${listed}`);
  const selected = idsFile === null ? [...loaded.cases] : idsFile.ids.map((id) => byId.get(id) as EvalCase);
  if (selected.length === 0)
    throw new CorpusError(idsFile === null ? "no cases selected: the corpora hold no case" : `no cases selected: the IDs file lists none${listed}`);
  const paired = selected.filter((c) => c.adjudication !== null).length;
  if (paired > 0 && paired < selected.length) throw new CorpusError("Select the paired probe (cases with adjudication) separately from the other corpora");
  return selected;
}
