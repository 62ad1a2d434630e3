// `check`, the verb behind `little-canary check`: its settings resolved once, then `checkText`
// screens one text, given or read from a stream. The verdict is returned, never printed.
import type { Readable } from "node:stream";
import { decodeStrictText } from "../core/strict-document.js";
import { UsageError } from "../core/errors.js";
import { hasCheckMethod, refuseUnknownOptions } from "../core/guards.js";
import { isBlankText } from "../core/codepoints.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { PipelineBase } from "../pipeline/base.js";
import { createPipeline } from "../pipeline/create.js";
import { nonEmpty, refuseJudgeBeside } from "../canary/pipeline-options.js";
import type { PipelineVerdict } from "../pipeline/verdict.js";
import { failedCanaryReason, observeCanary, type CanaryOutageReason } from "../pipeline/circuit-breaker.js";
import { OPTION_LABELS, resolveCanarySettings, type CanarySettings } from "./canary-settings.js";
import { batchState } from "../screen/batch-state.js";
import type { BatchState } from "../documents/schemas.js";
import type { VerbIo } from "./reporter.js";

/** Far above the structural limit (4000 code points) so the filter, not the reader, decides. */
const MAX_CHECK_INPUT_BYTES = 1024 * 1024;

/** Messages of the stream reader's refusals (fixed texts: the input is never echoed). */
const TEXT_REFUSALS = {
  byte_order_mark: "input starts with a byte order mark; send plain UTF-8",
  invalid_utf8: "input is not valid UTF-8; re-encode it as UTF-8 (iconv -t UTF-8)",
} as const;

/** Reads a whole stream as strict UTF-8 text; refuses (UsageError) more than `maxBytes` bytes as soon as they are read. */
async function readBoundedText(stream: Readable, maxBytes: number = MAX_CHECK_INPUT_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : (chunk as Buffer);
    total += buffer.length;
    if (total > maxBytes) {
      throw new UsageError(
        `input exceeds ${maxBytes} bytes, the most check reads; a longer text goes through screen or ingest as a JSONL record, which they cut into segments`,
      );
    }
    chunks.push(buffer);
  }
  const decoded = decodeStrictText(Buffer.concat(chunks));
  if (!decoded.ok) throw new UsageError(TEXT_REFUSALS[decoded.code]);
  return decoded.text;
}

export interface CheckTextOptions {
  /** The text itself (used as given), or a stream read bounded, as strict UTF-8 without BOM, one trailing newline dropped. */
  readonly input: string | Readable;
  /** The pipeline, or a function building it once the input is read (so an empty input is refused before a bad pipeline setting). */
  readonly pipeline: Pick<SecurityPipeline, "check"> | (() => Pick<SecurityPipeline, "check"> | Promise<Pick<SecurityPipeline, "check">>);
  /** Most bytes read from a stream input (default MAX_CHECK_INPUT_BYTES). */
  readonly maxInputBytes?: number;
}

/** Every option of CheckTextOptions; `satisfies` keeps the list equal to the interface. */
const CHECK_TEXT_OPTION_KEYS: readonly string[] = Object.keys({ input: true, pipeline: true, maxInputBytes: true } satisfies Record<
  keyof CheckTextOptions,
  true
>);

export interface CheckTextResult {
  readonly verdict: PipelineVerdict;
  /** Why the canary backend was out for this check (unreachable, timeout…), or null. */
  readonly canaryOutage: CanaryOutageReason | null;
}

/** How an input with nothing to screen is refused: in the caller's terms (the library's options, or the CLI's flags). */
interface NothingToScreenWords {
  /** The input was a string, and empty. */
  readonly emptyText: string;
  /** The input was a stream, and held nothing but at most one line break. */
  readonly emptyStream: string;
  /** The input held whitespace alone. */
  readonly blank: string;
}

const LIBRARY_WORDS: NothingToScreenWords = {
  emptyText: "checkText option input is an empty string: nothing to screen",
  emptyStream: "checkText option input (a stream) held no text: nothing to screen",
  blank: "checkText option input is only whitespace: nothing to screen",
};

const CLI_WORDS: NothingToScreenWords = {
  emptyText: "the text given (--text) is empty: nothing to screen; pipe text on stdin or pass --text with some text",
  emptyStream: "no input text on stdin: nothing to screen; pipe text on stdin or pass --text with some text",
  blank: "the input text is only whitespace: nothing to screen; pipe text on stdin or pass --text",
};

/** Reads (when given a stream) and screens one text; throws UsageError for an empty, whitespace-only or refused input. */
export async function checkText(options: CheckTextOptions): Promise<CheckTextResult> {
  refuseUnknownOptions("checkText", options, CHECK_TEXT_OPTION_KEYS);
  return screenOneText(options, LIBRARY_WORDS);
}

/** checkText with its refusals of an empty input in `words`. */
async function screenOneText(options: CheckTextOptions, words: NothingToScreenWords): Promise<CheckTextResult> {
  const input: unknown = options.input;
  const readable = typeof input === "object" && input !== null && typeof (input as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
  if (typeof input !== "string" && !readable) throw new UsageError("checkText option input must be a string or a readable stream");
  const builder: unknown = options.pipeline;
  if (typeof builder !== "function" && !hasCheckMethod(builder)) {
    throw new UsageError("checkText option pipeline must be a pipeline (with check) or a function that builds one");
  }
  // `echo` appends one newline (or CRLF): it is not part of the text the user meant to screen.
  const text = typeof options.input === "string" ? options.input : (await readBoundedText(options.input, options.maxInputBytes)).replace(/\r?\n$/, "");
  if (text === "") throw new UsageError(typeof options.input === "string" ? words.emptyText : words.emptyStream);
  // A text of whitespace alone is refused the same way: there is nothing to screen, and a
  // canary call on it would be spent for a verdict that says nothing.
  if (isBlankText(text)) throw new UsageError(words.blank);
  const pipeline = typeof options.pipeline === "function" ? await options.pipeline() : options.pipeline;
  // A canary pool is pinned to one identity, and an OpenAI-compatible canary server must show
  // it holds a whole window, before the text is sent anywhere. A pipeline without backends (its
  // canary is off) has nothing to prepare; loading the preflight would load every backend.
  if (!(pipeline instanceof PipelineBase && pipeline.probe === null)) {
    const { preflightCanary } = await import("../pipeline/canary-preflight.js");
    await preflightCanary(pipeline);
  }
  const verdict = await pipeline.check(text);
  const canary = observeCanary(verdict.toRecord());
  return { verdict, canaryOutage: canary.kind === "outage" ? canary.reason : null };
}

/**
 * The exit code of one check: the state `screen` gives the same verdict as a batch item
 * (batchState: block, then degraded, then flag, then unexercised, then pass), as `screen` exits
 * for a batch of that one item. 1 for a block or a flag; 2 when the canary was out (degraded) or a
 * layer did not run (unexercised) and no block outranks it; 0 only when the text is safe and both
 * layers ran. A fail-closed denial is a coverage failure, not a detection.
 */
export function checkExitCode(verdict: PipelineVerdict): 0 | 1 | 2 {
  return STATE_EXIT[batchState(verdict)];
}

const STATE_EXIT: Readonly<Record<BatchState, 0 | 1 | 2>> = { block: 1, flag: 1, degraded: 2, unexercised: 2, pass: 0 };

/** The settings of one `check`: the canary settings, the text (absent: read from `io.stdin`) and an optional judge. */
export interface CheckOptions extends CanarySettings {
  readonly text?: string;
  /** Experimental: an LLM judge model instead of the regex analyzer. */
  readonly judgeModel?: string;
  readonly io: VerbIo;
}

/**
 * `little-canary check` as one call: the settings resolved once, the text screened, a canary outage
 * reported on `io.reporter`; returns the verdict and its exit code (checkExitCode).
 */
export async function check(options: CheckOptions) {
  const { io } = options;
  const settings = resolveCanarySettings(options, { ...io, warn: (message) => io.reporter.warn(message) });
  const labels = io.labels ?? OPTION_LABELS;
  if (options.judgeModel !== undefined) {
    nonEmpty(labels.judgeModel, options.judgeModel);
    // Refused here, under the caller's labels, before the pipeline would refuse it under its option names.
    refuseJudgeBeside({ judge: true, pool: settings.canaryPool !== undefined, embedded: settings.provider === "embedded" }, labels);
  }
  const plan = Object.freeze({ ...settings, ...(options.judgeModel !== undefined ? { judgeModel: options.judgeModel } : {}) });
  if (options.text === undefined) await io.reporter.readingStdin();
  const built: { pipeline?: PipelineBase } = {};
  const { verdict, canaryOutage } = await screenOneText(
    {
      input: options.text !== undefined ? options.text : io.stdin,
      // Built after the input is read: an empty input is refused before a bad pipeline setting.
      pipeline: async () => (built.pipeline = await createPipeline(plan)),
    },
    CLI_WORDS,
  );
  const failed = failedCanaryReason(verdict.toRecord());
  if (failed !== null) {
    const { canaryOutageWarning, canaryReplyWarning, canaryTarget } = await import("../pipeline/canary-warning.js");
    const target = canaryTarget(built.pipeline as SecurityPipeline);
    const warning = canaryOutage !== null ? canaryOutageWarning(target, canaryOutage) : canaryReplyWarning(target, failed);
    await io.reporter.diagnostic(warning);
  } else if (built.pipeline?.probe != null) {
    const { unreadModelListProblem } = await import("../pipeline/canary-warning.js");
    const problem = unreadModelListProblem(built.pipeline, false);
    if (problem !== null) io.reporter.warn(problem);
  }
  return { verdict, exitCode: checkExitCode(verdict) };
}
