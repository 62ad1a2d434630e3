// `little-canary ingest [FILE|-] --manifest PATH [--export PATH]`: flags → the `ingest` verb
// (src/verbs/ingest.ts over `ingestFiles`, which owns pre-flight, locking, reading, the run,
// publication and rollback) → summary → exit code.
// Every refusal prints `error: …` and exits 3 with nothing written. SIGINT/SIGTERM before the
// commit roll back and exit 3; after it, the pair stands and a warning says so (docs/publication.md).
// The library is imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import type { PublishFs } from "../../src/publish/fs.js";
import { INGEST_HELP } from "../help.js";
import { addIngestFlags, type IngestFlags } from "../ingest-flags.js";
import { OutputClosedError, writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";
import { refuseSharedFiles } from "../shared-files.js";

const COMMITTED_WARNING = "warning: interrupted, but the publication had already committed: the pair below is complete\n";

export interface IngestRunOptions {
  /** File system for publication (tests inject faults and delays here). */
  readonly fs?: PublishFs;
}

/** Defines `ingest` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("ingest")
    .description("Admit JSONL records for a RAG index under strict/v1; publish a hash-bound manifest and an export of admitted records.")
    .argument("[input]", "JSONL file (a JSON string or {text, id?, source?, metadata?} per line), or - for stdin", "-");
  return addIngestFlags(command)
    .addHelpText("after", INGEST_HELP)
    .action(async (input: string, flags: IngestFlags) => {
      state.exitCode = await run(input, flags, io);
    });
}

/** Runs one ingest, prints its summary (or manifest) and returns the exit code. */
export async function run(input: string, flags: IngestFlags, io: CliIo, options: IngestRunOptions = {}): Promise<number> {
  const [{ ingest, IngestRefusedError }, { ingestOptionsFromFlags }, { createIngestReporter }, output, { displayText }, { INGEST_EXIT }] = await Promise.all([
    import("../../src/verbs/ingest.js"),
    import("../ingest-options.js"),
    import("../ingest-reporter.js"),
    import("../ingest-output.js"),
    import("../../src/core/display-text.js"),
    import("../exit-codes.js"),
  ]);
  await refuseSharedFiles(input, flags, io);
  // Registered first, so no phase of the run can be interrupted without its cleanup.
  const controller = new AbortController();
  const unregister = io.onSignal((signal) => {
    // With a cache, the verdicts stored so far stay in it: the operator should know a re-run resumes.
    const kept = typeof flags.cache !== "string" ? "" : " (the verdicts already stored in the --cache file stay there: a re-run with it reuses them)";
    if (!controller.signal.aborted) controller.abort(new IngestRefusedError(`interrupted by ${signal}; nothing written${kept}`));
  });
  const reporter = createIngestReporter(io);
  try {
    const settings = { ...ingestOptionsFromFlags(input, flags, io), signal: controller.signal, ...(options.fs ? { fs: options.fs } : {}) };
    const result = await ingest(settings, reporter);
    if (result.interruptedAfterCommit) await writeOut(io.stderr, COMMITTED_WARNING);
    const { published, outcome } = result;
    const printing = flags.json ? output.printPublishedManifest(published, io) : writeOut(io.stdout, output.formatIngestSummary(result.run.summary, published));
    await printing.catch((error: unknown) => {
      const pair = `--manifest ${displayText(published.manifestPath)}${published.exportPath === null ? "" : ` --export ${displayText(published.exportPath)}`}`;
      const note = `the pair was published: check it with little-canary verify ${pair}`;
      // Not "refused, nothing written" (3): the pair stands, so this has its own exit code (4).
      throw error instanceof OutputClosedError ? error.afterCommitted(note) : error;
    });
    return INGEST_EXIT[outcome];
  } finally {
    reporter.close();
    // Last (ingestFiles released the locks): an interrupt during the release is still handled.
    unregister();
  }
}
