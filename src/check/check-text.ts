// `checkText`: one text screened as one library call, the work behind `little-canary check`.
// The text is given, or read from a stream: bounded by bytes actually read, strict UTF-8 with
// no byte order mark (the one strict reader's rules), and one trailing newline dropped (what
// `echo` adds is not part of the text). It returns the verdict and whether the canary was out;
// nothing is printed here. Refusals throw UsageError (`usage`).
import type { Readable } from "node:stream";
import { decodeStrictText } from "../core/strict-document.js";
import { UsageError } from "../core/errors.js";
import { isBlankText } from "../core/codepoints.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import type { PipelineVerdict } from "../pipeline/verdict.js";
import { observeCanary, type CanaryOutageReason } from "../schedule/circuit-breaker.js";

/** Far above the structural limit (4000 code points) so the filter, not the reader, decides. */
const MAX_CHECK_INPUT_BYTES = 1024 * 1024;

/** Messages of the stream reader's refusals (fixed texts: the input is never echoed). */
const TEXT_REFUSALS = {
  byte_order_mark: "input starts with a byte order mark; send plain UTF-8",
  invalid_utf8: "input is not valid UTF-8",
} as const;

/**
 * Reads a whole stream as strict UTF-8 text, refusing (UsageError) more than `maxBytes` bytes
 * as soon as they are read, a byte order mark, or invalid UTF-8.
 */
async function readBoundedText(stream: Readable, maxBytes: number = MAX_CHECK_INPUT_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : (chunk as Buffer);
    total += buffer.length;
    if (total > maxBytes) throw new UsageError(`input exceeds ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  const decoded = decodeStrictText(Buffer.concat(chunks));
  if (!decoded.ok) throw new UsageError(TEXT_REFUSALS[decoded.code]);
  return decoded.text;
}

/** `echo` appends one newline; it is not part of the text the user meant to screen. */
function dropOneTrailingNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}

export interface CheckTextOptions {
  /** The text itself (used as given), or a stream read as described in the module comment. */
  readonly input: string | Readable;
  /**
   * The pipeline, or a function that builds it once the input is read (so an empty input is
   * reported before a bad pipeline setting, as the CLI does).
   */
  readonly pipeline: Pick<SecurityPipeline, "check"> | (() => Pick<SecurityPipeline, "check">);
  /** Most bytes read from a stream input (default MAX_CHECK_INPUT_BYTES). */
  readonly maxInputBytes?: number;
}

export interface CheckTextResult {
  readonly verdict: PipelineVerdict;
  /** Why the canary backend was out for this check (unreachable, timeout…), or null. */
  readonly canaryOutage: CanaryOutageReason | null;
}

/** Reads (when given a stream) and screens one text; throws UsageError for an empty, whitespace-only or refused input. */
export async function checkText(options: CheckTextOptions): Promise<CheckTextResult> {
  const text =
    typeof options.input === "string"
      ? options.input
      : dropOneTrailingNewline(await readBoundedText(options.input, options.maxInputBytes ?? MAX_CHECK_INPUT_BYTES));
  if (text === "") throw new UsageError("no input text: pipe text on stdin or pass --text");
  // A text of whitespace alone is refused the same way: there is nothing to screen, and a
  // canary call on it would be spent for a verdict that says nothing.
  if (isBlankText(text)) throw new UsageError("the input text is only whitespace: nothing to screen; pipe text on stdin or pass --text");
  const pipeline = typeof options.pipeline === "function" ? options.pipeline() : options.pipeline;
  // A canary pool is pinned to one identity, and an OpenAI-compatible canary server must show
  // it holds a whole window, before the text is sent anywhere.
  await preflightCanary(pipeline);
  const verdict = await pipeline.check(text);
  const canary = observeCanary(verdict.toRecord());
  return { verdict, canaryOutage: canary.kind === "outage" ? canary.reason : null };
}

/**
 * The exit code of one check: 1 for a detection (blocked, or flagged by the advisory); 2 when
 * coverage failed or did not run; 0 only when the text is safe and both layers were exercised.
 * A fail-closed denial is a coverage failure, not a detection.
 */
export function checkExitCode(verdict: PipelineVerdict): 0 | 1 | 2 {
  if (!verdict.safe && verdict.blockedBy !== "fail_closed") return 1;
  if (verdict.degraded || !verdict.exercised) return 2;
  if (verdict.advisory.flagged) return 1;
  return 0;
}
