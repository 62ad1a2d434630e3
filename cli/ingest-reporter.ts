// What an ingest run tells the person at the terminal, apart from its result: the warnings on
// stderr (no canary, a canary outage, repeated ids, publication and cache notes) and the progress
// line. One object, the reporter the `ingest` verb is given beside its options.
import type { IngestVerbReporter } from "../src/verbs/ingest.js";
import type { IngestFlags } from "./ingest-flags.js";
import { ingestRunWarnings } from "./ingest-output.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "./io.js";
import { createProgress } from "./progress.js";

const NO_CANARY_WARNING = "warning: canary disabled (--no-canary): only the structural layer runs, so no record can be admitted\n";

/** The verb's reporter, and `close`, which clears the progress line (idempotent). */
export interface CliIngestReporter extends IngestVerbReporter {
  close(): void;
}

/** The reporter of `little-canary ingest`: stderr, and the progress line when stderr is a TTY. */
export function createIngestReporter(input: string, flags: IngestFlags, io: CliIo): CliIngestReporter {
  const line = createProgress(io, "ingest");
  return {
    start: async () => {
      if (!flags.canary) await writeOut(io.stderr, NO_CANARY_WARNING);
      if (input === "-") await hintIfTerminalStdin(io, "JSONL records", "pass FILE");
    },
    progress: (done, total) => line.update(done, total),
    finished: async (run, canary) => {
      line.finish();
      for (const warning of ingestRunWarnings(run, canary, flags.uniqueIds === true)) await writeOut(io.stderr, warning);
    },
    warn: (message) => void io.stderr.write(`warning: ${message}\n`),
    close: () => line.finish(),
  };
}
