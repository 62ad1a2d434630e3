// Loading evaluation corpora and selecting the cases of a run. Files are read strictly and bounded.
// Case text is hostile: never echoed in an error (errors name the file, the case index or the id only).
import { readSmallFile } from "../core/read-at-most.js";
import { resolve } from "node:path";
import { z } from "zod";
import { errorCode, LittleCanaryError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import { truncateCodePoints } from "../core/codepoints.js";
import { asciiJson } from "../core/display-text.js";
import { isPlainObject } from "../core/guards.js";

/** A corpus file larger than this is refused before it is decoded. */
export const MAX_CORPUS_BYTES = 64 * 1024 * 1024;
/** Most cases in one run (all corpora together). */
export const MAX_CASES = 100_000;
const MAX_ID_CHARS = 200;
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
  stealth: z.number().int().optional(),
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

/** The strict JSON value of a whole file (read bounded; see readStrictDocument) and its SHA-256, or a CorpusError naming `what`. */
async function readDocument(path: string, what: string, options: LoadOptions): Promise<{ sha256: string; value: unknown }> {
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
    throw new CorpusError(`${what}: ${parsed.code === "invalid_utf8" ? "not valid UTF-8" : parsed.message}`);
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

function toCase(raw: unknown, corpusIndex: number, where: string) {
  const parsed = CaseSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "case";
    throw new CorpusError(`${where}: field '${truncateCodePoints(field, 40)}' is invalid (${issue?.code ?? "invalid"})`);
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
    const { sha256, value: document } = await readDocument(path, what, options);
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
  const { sha256, value } = await readDocument(path, what, options);
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
