// `little-canary check`: flags → `checkText` (reads stdin strictly when no --text, screens the
// text) → the verdict JSON on stdout → exit code (checkExitCode).
// Exit 0 only when the text is safe AND both layers were exercised; 1 for a detection
// (block or flag); 2 when coverage failed or did not run, or the input/usage was invalid.
import { UsageError } from "../../src/core/errors.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { checkExitCode, checkText } from "../../src/check/check-text.js";
import type { CliIo } from "../io.js";
import { hintIfTerminalStdin, writeOut } from "../io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "../options.js";
import { canaryOutageWarning, canaryTarget } from "../../src/config/canary-warning.js";

/**
 * The long-text rule of check, screen and serve, for their --help: length is never a detection.
 * Numbers are the pipeline defaults (maxInputLength 4000, segmentOverlap 500, maxSegments 64).
 */
export const LONG_TEXT_HELP = `Long texts: length is never a detection. A text over 4000 code points is screened in
windows of 4000 that share 500 with their neighbours (the ingest segmenter); the verdict is
the worst window's and "segments" lists each window's span, state and coverage_reason. A text
needing more than 64 windows is degraded (coverage_reason input_too_long).`;

export interface CheckFlags extends CanaryFlags {
  text?: string;
  judgeModel?: string;
}

export { checkExitCode };

export async function runCheck(flags: CheckFlags, io: CliIo): Promise<number> {
  const options = { ...pipelineOptionsFromFlags(flags, io) };
  if (flags.judgeModel !== undefined) {
    if (flags.judgeModel.trim() === "") throw new UsageError("--judge-model must not be empty");
    Object.assign(options, { judgeModel: flags.judgeModel });
  }
  if (flags.text === undefined) await hintIfTerminalStdin(io, "the text", "pass --text");
  const built: { pipeline?: SecurityPipeline } = {};
  const { verdict, canaryOutage } = await checkText({
    input: flags.text !== undefined ? flags.text : io.stdin,
    // Built after the input is read: an empty input is refused before a bad pipeline setting.
    pipeline: () => (built.pipeline = new SecurityPipeline(options)),
  });
  if (canaryOutage !== null) await writeOut(io.stderr, canaryOutageWarning(canaryTarget(built.pipeline as SecurityPipeline), canaryOutage));
  await writeOut(io.stdout, `${JSON.stringify(verdict.toDict())}\n`);
  return checkExitCode(verdict);
}
