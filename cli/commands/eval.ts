// `little-canary eval`: flags → `runEval` (runs the corpus in one mode, writes the headless JSONL:
// header, one line per case, completion line, and optionally a static HTML report) → a short
// human summary on stdout with counts and rates only (case text is never printed). Usage,
// loading and backend errors exit 2 (cli/exit-codes.ts).
import { Command, Option } from "commander";
import { TIMEOUT_ENV } from "../../src/canary/timeout.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from "../../src/eval/timeout-default.js";
import type { EvalFlags } from "../eval-flags.js";
import { addPoolFlags, addProviderFlags, collectValue, thresholdArg, timeoutArg } from "../flags.js";
import { EVAL_HELP } from "../help.js";
import { abortOnSignals, writeOut, type CliIo } from "../io.js";
import { createProgress } from "../progress.js";
import type { RunState } from "../run-state.js";

/** Runs the evaluation, prints its summary and returns the exit code. */
export async function run(flags: EvalFlags, io: CliIo): Promise<number> {
  const [{ runEval }, { evalOptionsFromFlags }, { evalBanner, formatSummary }] = await Promise.all([
    import("../../src/eval/run.js"),
    import("../eval-flags.js"),
    import("../eval-output.js"),
  ]);
  const options = await evalOptionsFromFlags(flags, io);
  // The first interrupt stops the run at once (a call in flight is dropped, see runEval); a
  // second one ends the process whatever is still running.
  const interrupt = abortOnSignals(io);
  const progress = createProgress(io, "eval");
  let bannerText = "";
  try {
    const summary = await runEval({
      ...options,
      signal: interrupt.signal,
      onHeader: (header) => {
        bannerText = evalBanner(header);
      },
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.finish();
    await writeOut(io.stdout, bannerText + formatSummary(summary, flags.output, flags.report ?? null));
    return 0;
  } finally {
    progress.finish();
    interrupt.dispose();
  }
}

/** Defines `eval` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("eval")
    .description("Run evaluation corpora through the pipeline and write a JSONL run record (and an HTML report).")
    .requiredOption("--corpus <file>", "corpus JSON (array of cases or {cases:[...]}); repeat for several", collectValue)
    .option("--ids-file <file>", "JSON list of case ids to run, in that order")
    .addOption(
      new Option("--mode <mode>", "what to evaluate (default: pipeline with --model, else structural-only)").choices([
        "pipeline",
        "model-only",
        "structural-only",
      ]),
    )
    .option("--model <tag>", "canary model (required for pipeline and model-only)")
    .option("--judge <tag>", "experimental LLM judge instead of the regex analyzer (canary modes only)")
    .option("--threshold <n>", "behavioural block threshold, 0..1", thresholdArg, 0.6)
    .option("--timeout <seconds>", `per-call canary timeout (default: $${TIMEOUT_ENV}, else ${DEFAULT_EVAL_TIMEOUT_SECONDS})`, timeoutArg)
    .option("--warmup", "one unscored check before the cases (loads the model)")
    .option("--ollama-url <url>", "Ollama endpoint (http or https origin)", "http://127.0.0.1:11434");
  return addPoolFlags(addProviderFlags(command))
    .requiredOption("--output <file>", "JSONL run record: header, one line per case, completion line")
    .option("--report <file>", "also write a self-contained HTML report")
    .addHelpText("after", EVAL_HELP)
    .action(async (flags: EvalFlags) => {
      state.exitCode = await run(flags, io);
    });
}
