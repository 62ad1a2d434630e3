// What an ingest run tells the person at the terminal, apart from its result: the warnings on
// stderr (no canary, a canary outage, repeated ids, publication and cache notes) and the progress
// line. One object, so the command hands the library its output in one place and its settings
// (flags → options) in another.
import { canaryTarget } from "../src/pipeline/canary-warning.js";
import type { IngestFilesHooks, IngestRunReport } from "../src/ingest/files.js";
import type { SecurityPipeline } from "../src/pipeline/pipeline.js";
import type { IngestFlags } from "./ingest-flags.js";
import { ingestRunWarnings } from "./ingest-output.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "./io.js";
import { createProgress } from "./progress.js";

const NO_CANARY_WARNING = "warning: canary disabled (--no-canary): only the structural layer runs, so no record can be admitted\n";

/** Progress and warnings of one ingest run. */
export interface IngestReporter {
  /** The input is about to be read. */
  start(): Promise<void>;
  /** Records done so far. */
  progress(done: number, total: number): void;
  /** The checks finished: clear the progress line and warn about what the run saw. */
  finished(run: IngestRunReport): Promise<void>;
  /** A note from publication or the cache, as one warning line. */
  warn(message: string): void;
  /** Clears the progress line (idempotent). */
  close(): void;
}

/** The reporter of `little-canary ingest`: stderr, and the progress line when stderr is a TTY. */
export function createIngestReporter(input: string, flags: IngestFlags, io: CliIo, pipeline: () => SecurityPipeline | null): IngestReporter {
  const line = createProgress(io, "ingest");
  return {
    start: async () => {
      if (!flags.canary) await writeOut(io.stderr, NO_CANARY_WARNING);
      if (input === "-") await hintIfTerminalStdin(io, "JSONL records", "pass FILE");
    },
    progress: (done, total) => line.update(done, total),
    finished: async (run) => {
      line.finish();
      const target = canaryTarget(pipeline() as SecurityPipeline);
      for (const warning of ingestRunWarnings(run, target, flags.uniqueIds === true)) await writeOut(io.stderr, warning);
    },
    warn: (message) => void io.stderr.write(`warning: ${message}\n`),
    close: () => line.finish(),
  };
}

/** The library's hooks, fed by a reporter. */
export function reporterHooks(reporter: IngestReporter): IngestFilesHooks {
  return {
    beforeRead: () => reporter.start(),
    onProgress: (done, total) => reporter.progress(done, total),
    afterRun: (run) => reporter.finished(run),
    onPublishNote: (message) => reporter.warn(message),
    onCacheNote: (message) => reporter.warn(message),
  };
}
