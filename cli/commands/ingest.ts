// `little-canary ingest [FILE|-] --manifest PATH [--export PATH]`: flags → `ingestFiles` (which
// owns pre-flight, locking, reading, the run, publication and rollback) → summary → exit code.
// Every refusal prints `error: …` and exits 3 with nothing written. SIGINT/SIGTERM before the
// commit roll back and exit 3; after it, the pair stands and a warning says so (docs/publication.md).
import { canaryTarget } from "../../src/config/canary-warning.js";
import { ingestFiles, IngestRefusedError } from "../../src/ingest/files.js";
import type { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { PublishFs } from "../../src/publish/fs.js";
import { INGEST_EXIT } from "../exit-codes.js";
import { pipelineFromFlags, policyFromFlags, runOptionsFromFlags, type IngestFlags } from "../ingest-flags.js";
import { formatIngestSummary, ingestNoteHooks, ingestRunWarnings, printPublishedManifest } from "../ingest-output.js";
import { hintIfTerminalStdin, OutputClosedError, writeOut, type CliIo } from "../io.js";
import { createProgress } from "../progress.js";
import { refuseSharedFiles } from "../shared-files.js";
import { displayText } from "../../src/core/display-text.js";

export type { IngestFlags } from "../ingest-flags.js";
export { formatIngestSummary, ingestRunWarnings, SUMMARY_HELD_LIMIT } from "../ingest-output.js";
export { IngestRefusedError };

const NO_CANARY_WARNING = "warning: canary disabled (--no-canary): only the structural layer runs, so no record can be admitted\n";
const COMMITTED_WARNING = "warning: interrupted, but the publication had already committed: the pair below is complete\n";

export interface IngestRunOptions {
  /** File system for publication (tests inject faults and delays here). */
  readonly fs?: PublishFs;
}

export async function runIngest(input: string, flags: IngestFlags, io: CliIo, options: IngestRunOptions = {}): Promise<number> {
  await refuseSharedFiles(input, flags, io);
  // Registered first, so no phase of the run can be interrupted without its cleanup.
  const controller = new AbortController();
  const unregister = io.onSignal((signal) => {
    if (!controller.signal.aborted) controller.abort(new IngestRefusedError(`interrupted by ${signal}; nothing written`));
  });
  const progress = createProgress(io, "ingest");
  let pipeline: SecurityPipeline | null = null;
  try {
    const result = await ingestFiles({
      input: input === "-" ? io.stdin : input,
      manifest: flags.manifest,
      export: flags.export ?? null,
      overwrite: flags.overwrite === true,
      policy: policyFromFlags(flags),
      pipeline: (policy) => (pipeline = pipelineFromFlags(flags, io, policy)),
      ...runOptionsFromFlags(flags, io),
      signal: controller.signal,
      ...(options.fs ? { fs: options.fs } : {}),
      cwd: io.cwd,
      hooks: {
        beforeRead: async () => {
          if (!flags.canary) await writeOut(io.stderr, NO_CANARY_WARNING);
          if (input === "-") await hintIfTerminalStdin(io, "JSONL records", "pass FILE");
        },
        onProgress: (done, total) => progress.update(done, total),
        afterRun: async (run) => {
          progress.finish();
          const target = canaryTarget(pipeline as SecurityPipeline);
          for (const warning of ingestRunWarnings(run, target, flags.uniqueIds === true)) await writeOut(io.stderr, warning);
        },
        ...ingestNoteHooks(io),
      },
    });
    if (result.interruptedAfterCommit) await writeOut(io.stderr, COMMITTED_WARNING);
    const { published, outcome } = result;
    const printing = flags.json ? printPublishedManifest(published, io) : writeOut(io.stdout, formatIngestSummary(result.run.summary, published));
    await printing.catch((error: unknown) => {
      const note = `the pair was published: check it with little-canary verify --manifest ${displayText(published.manifestPath)}`;
      // Not "refused, nothing written" (3): the pair stands, so this has its own exit code (4).
      throw error instanceof OutputClosedError ? error.afterCommitted(note) : error;
    });
    return INGEST_EXIT[outcome];
  } finally {
    progress.finish();
    // Last (ingestFiles released the locks): an interrupt during the release is still handled.
    unregister();
  }
}
