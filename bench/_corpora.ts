// Command-line corpus paths for benchmarks that measure on evaluation corpora. The corpora are
// third-party data kept outside this repository; a benchmark reads them from the paths it is
// given and never copies them. `--corpus` takes one or more files (`--corpus a.json b.jsonl`,
// and it may be repeated); a missing flag or an unreadable or malformed file is a clear message
// naming the flag, the file and (for JSONL) the line, and exit status 2, never a stack trace.
//
// Two formats are read, by file name:
//   - `*.jsonl`: one development-set case per line, `{"id", "text", "attack", "category"?}`
//     (`attack` is the label; `category` is optional). Read strictly here: UTF-8 without a BOM,
//     one JSON object per line, no duplicate keys, no other fields, unique ids within the file.
//   - anything else: the JSON array format `eval` reads, with its strict loader (src/eval/corpus.ts).
// Each file is loaded on its own (ids need only be unique within a file), because its figures
// are reported over its own population and never pooled with another file's.

import { existsSync } from "node:fs";
import { readFile as fsReadFile } from "node:fs/promises";
import { resolve } from "node:path";
import { sha256Hex } from "../src/core/hash.js";
import { parseJsonLine } from "../test/support/core-text.js";
import { decodeStrictText } from "../src/core/strict-document.js";
import { wilsonInterval } from "../src/eval/rates.js";
import { CorpusError, type EvalCase, loadCorpora, type LoadedCorpora, MAX_CASES, MAX_CORPUS_BYTES } from "../src/eval/corpus.js";

/** The flag that names corpus files. */
export const CORPUS_FLAG = "--corpus";

/** The files named by `--corpus` (each flag takes every following argument up to the next `--flag`); an error message when none is given. */
export function corpusPathsFromArgs(argv: readonly string[]): { paths: string[] } | { error: string } {
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === CORPUS_FLAG) {
      const start = paths.length;
      while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith("--")) paths.push(argv[++i] as string);
      if (paths.length === start) return { error: `${CORPUS_FLAG} needs at least one file path` };
    } else if (arg.startsWith(`${CORPUS_FLAG}=`)) {
      paths.push(arg.slice(CORPUS_FLAG.length + 1));
    }
  }
  if (paths.length === 0) return { error: `no corpus given: pass ${CORPUS_FLAG} <file> [<file> ...]` };
  const missing = paths.find((p) => !existsSync(p));
  if (missing !== undefined) return { error: `${CORPUS_FLAG} ${shown(missing)}: file not found` };
  return { paths };
}

/** A path for messages: control and non-ASCII characters escaped. */
function shown(path: string): string {
  return JSON.stringify(path)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const DEV_KEYS = new Set(["id", "text", "attack", "category"]);
const MAX_ID_CHARS = 200;

/** One line of a development set as an evaluation case (`attack` true → an attack, false → benign). */
function devCase(value: unknown, corpusIndex: number, where: string): EvalCase {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new CorpusError(`${where}: must be a JSON object`);
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !DEV_KEYS.has(k));
  if (extra !== undefined) throw new CorpusError(`${where}: unknown field '${shown(extra.slice(0, 40))}' (expected id, text, attack, category)`);
  const { id, text, attack, category } = record;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_CHARS || !id.isWellFormed()) {
    throw new CorpusError(`${where}: field 'id' must be a non-empty string of at most ${MAX_ID_CHARS} characters`);
  }
  if (typeof text !== "string" || !text.isWellFormed()) throw new CorpusError(`${where}: field 'text' must be a well-formed string`);
  if (typeof attack !== "boolean") throw new CorpusError(`${where}: field 'attack' must be true or false`);
  if (category !== undefined && (typeof category !== "string" || category.length > MAX_ID_CHARS || !category.isWellFormed())) {
    throw new CorpusError(`${where}: field 'category' must be a string of at most ${MAX_ID_CHARS} characters`);
  }
  return Object.freeze({
    id,
    prompt: text,
    expectedSafe: !attack,
    kind: attack ? "attack" : "benign",
    category: category ?? "uncategorized",
    goal: "",
    stealth: 3,
    failureMode: "",
    adjudication: null,
    provenance: Object.freeze({}),
    corpusIndex,
  });
}

/** Reads a development set (JSONL, one case per line); errors name the file and the 1-based line, never the text. */
export function parseDevJsonl(bytes: Uint8Array, corpusIndex: number, what: string): EvalCase[] {
  const decoded = decodeStrictText(bytes);
  if (!decoded.ok) {
    throw new CorpusError(
      `${what}: ${decoded.code === "byte_order_mark" ? "a byte order mark is not accepted; save the file as UTF-8 without BOM" : "not valid UTF-8"}`,
    );
  }
  const lines = decoded.text.split("\n");
  // One final newline ends the last line; it does not start an empty one.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length > MAX_CASES) throw new CorpusError(`${what}: more than ${MAX_CASES} lines`);
  const cases: EvalCase[] = [];
  const firstLine = new Map<string, number>();
  lines.forEach((raw, index) => {
    const where = `${what}, line ${index + 1}`;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") throw new CorpusError(`${where}: blank line (every line must be one case)`);
    const parsed = parseJsonLine(line);
    if (!parsed.ok) throw new CorpusError(`${where}: ${parsed.message}`);
    if (parsed.loneSurrogate) throw new CorpusError(`${where}: contains an escaped lone surrogate`);
    const c = devCase(parsed.value, corpusIndex, where);
    const earlier = firstLine.get(c.id);
    if (earlier !== undefined) throw new CorpusError(`${where}: id repeats the id of line ${earlier}`);
    firstLine.set(c.id, index + 1);
    cases.push(c);
  });
  if (cases.length === 0) throw new CorpusError(`${what}: holds no cases`);
  return cases;
}

/** Options of loadBenchCorpora. */
export interface BenchLoadOptions {
  /** Relative paths resolve against this directory. */
  readonly cwd: string;
  readonly readFile?: (path: string) => Promise<Uint8Array>;
}

/**
 * Loads each file on its own, in order: `*.jsonl` as a development set, anything else with the
 * strict `eval` loader. `corpusIndex` of every case is its file's position in `paths`.
 */
export async function loadBenchCorpora(paths: readonly string[], options: BenchLoadOptions): Promise<LoadedCorpora> {
  const readFile = options.readFile ?? ((path: string) => fsReadFile(path));
  const files: LoadedCorpora["files"][number][] = [];
  const cases: EvalCase[] = [];
  for (const [corpusIndex, path] of paths.entries()) {
    const what = `corpus ${corpusIndex + 1} (${shown(path)})`;
    if (path.endsWith(".jsonl")) {
      let bytes: Uint8Array;
      try {
        bytes = await readFile(resolve(options.cwd, path));
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        throw new CorpusError(`${what}: cannot be read${typeof code === "string" ? ` (${code})` : ""}`, { cause: error });
      }
      if (bytes.length > MAX_CORPUS_BYTES) throw new CorpusError(`${what}: larger than ${MAX_CORPUS_BYTES} bytes`);
      const own = parseDevJsonl(bytes, corpusIndex, what);
      files.push({ path, sha256: sha256Hex(bytes), cases: own.length });
      cases.push(...own);
    } else {
      let one: LoadedCorpora;
      try {
        one = await loadCorpora([path], { cwd: options.cwd, readFile });
      } catch (error) {
        // The eval loader numbers files from 1 within its own call; name this file by its place here.
        if (error instanceof CorpusError) throw new CorpusError(error.message.replace(/^corpus 1 \(/, `corpus ${corpusIndex + 1} (`), { cause: error });
        throw error;
      }
      files.push({ ...(one.files[0] as LoadedCorpora["files"][number]) });
      for (const c of one.cases) cases.push(Object.freeze({ ...c, corpusIndex }));
    }
    if (cases.length > MAX_CASES) throw new CorpusError(`corpora hold more than ${MAX_CASES} cases`);
  }
  return { files, cases };
}

/**
 * Loads the corpora named on the command line, or prints why it cannot (with `usage`) to stderr
 * and exits 2.
 */
export async function loadCorporaFromArgs(name: string, usage: string, argv: readonly string[] = process.argv.slice(2)): Promise<LoadedCorpora> {
  const parsed = corpusPathsFromArgs(argv);
  if ("error" in parsed) return fail(name, parsed.error, usage);
  try {
    return await loadBenchCorpora(parsed.paths, { cwd: process.cwd() });
  } catch (error) {
    if (error instanceof CorpusError) return fail(name, error.message, usage);
    throw error;
  }
}

function fail(name: string, message: string, usage: string): never {
  process.stderr.write(`bench:${name}: ${message}\nusage: ${usage}\n`);
  process.exit(2);
}

/** One population's figure: `k/n (p% [low–high])` with the 95% Wilson interval, or "-" for an empty population. */
export function blockedFigure(k: number, n: number): string {
  const interval = wilsonInterval(k, n);
  if (interval === null) return "-";
  const pct = (x: number): string => (100 * x).toFixed(1);
  return `${k}/${n} (${pct(k / n)}% [${pct(interval.low)}–${pct(interval.high)}])`;
}
