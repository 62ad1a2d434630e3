// Command-line corpus paths for benchmarks that measure on evaluation corpora. The corpora are
// third-party data kept outside this repository; a benchmark reads them from the paths it is
// given (`--corpus <file>`, repeatable) and never copies them. A missing flag or an unreadable
// file is a clear message naming the flag and the path, and exit status 2, never a stack trace.
// Files are read with the strict corpus loader `eval` uses (src/eval/corpus.ts).

import { existsSync } from "node:fs";
import { CorpusError, loadCorpora, type LoadedCorpora } from "../src/eval/corpus.js";

/** The flag that names a corpus file. */
export const CORPUS_FLAG = "--corpus";

/** The `--corpus <file>` values in order; an error message when the flag is absent or empty. */
export function corpusPathsFromArgs(argv: readonly string[]): { paths: string[] } | { error: string } {
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === CORPUS_FLAG) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) return { error: `${CORPUS_FLAG} needs a file path` };
      paths.push(value);
      i++;
    } else if (arg.startsWith(`${CORPUS_FLAG}=`)) {
      paths.push(arg.slice(CORPUS_FLAG.length + 1));
    }
  }
  if (paths.length === 0) return { error: `no corpus given: pass ${CORPUS_FLAG} <file> (repeatable)` };
  const missing = paths.find((p) => !existsSync(p));
  if (missing !== undefined) return { error: `${CORPUS_FLAG} ${missing}: file not found` };
  return { paths };
}

/**
 * Loads the corpora named on the command line, or prints why it cannot (with `usage`) to stderr
 * and exits 2.
 */
export async function loadCorporaFromArgs(name: string, usage: string, argv: readonly string[] = process.argv.slice(2)): Promise<LoadedCorpora> {
  const parsed = corpusPathsFromArgs(argv);
  if ("error" in parsed) return fail(name, parsed.error, usage);
  try {
    return await loadCorpora(parsed.paths, { cwd: process.cwd() });
  } catch (error) {
    if (error instanceof CorpusError) return fail(name, error.message, usage);
    throw error;
  }
}

function fail(name: string, message: string, usage: string): never {
  process.stderr.write(`bench:${name}: ${message}\nusage: ${usage}\n`);
  process.exit(2);
}
