// What an ingest run tells the person at the terminal, apart from its result: the warnings on
// stderr (no canary, a canary outage, repeated ids, publication and cache notes) and the progress
// line. One object, the reporter the `ingest` verb is given beside its options.
import type { IngestVerbReporter } from "../src/verbs/ingest.js";
import { ingestRunWarnings } from "./ingest-output.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "./io.js";
import { createProgress } from "./progress.js";

const NO_CANARY_WARNING = "warning: canary disabled (--no-canary): only the structural layer runs, so no record can be admitted\n";

/** The verb's reporter, and `close`, which clears the progress line (idempotent). */
export interface CliIngestReporter extends IngestVerbReporter {
  close(): void;
}

/** The reporter of `little-canary ingest`: stderr, and the progress line when stderr is a TTY. */
export function createIngestReporter(io: CliIo): CliIngestReporter {
  const line = createProgress(io, "ingest");
  return {
    start: async ({ canary, stdin }) => {
      if (!canary) await writeOut(io.stderr, NO_CANARY_WARNING);
      if (stdin) await hintIfTerminalStdin(io, "JSONL records", "pass FILE");
    },
    progress: (done, total) => line.update(done, total),
    finished: async (run, canary, uniqueIds) => {
      line.finish();
      for (const warning of ingestRunWarnings(run, canary, uniqueIds)) await writeOut(io.stderr, warning);
    },
    warn: (message) => {
      // On a terminal the warning takes the progress line's place, and the line is drawn again below it.
      line.interrupt();
      io.stderr.write(`warning: ${message}\n`);
    },
    close: () => line.finish(),
  };
}
