// `little-canary eval`: flags → `runEval` (runs the corpus in one mode, writes the headless JSONL:
// header, one line per case, completion line, and optionally a static HTML report) → a short
// human summary on stdout with counts and rates only (case text is never printed). Usage,
// loading and backend errors exit 2 (cli/exit-codes.ts).
import { Command, Option } from "commander";
import { TIMEOUT_ENV } from "../../src/config/timeout.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS, runEval } from "../../src/eval/run.js";
import { collect, EVAL_HELP, evalOptionsFromFlags, thresholdArg, type EvalFlags } from "../eval-flags.js";
import { evalBanner, formatSummary } from "../eval-output.js";
import { abortOnSignals, writeOut, type CliIo } from "../io.js";
import { addPoolFlags, addProviderFlags, timeoutArg } from "../options.js";
import { createProgress } from "../progress.js";
import type { RunState } from "../run-state.js";

export { formatSummary, type EvalFlags };

export async function runEvalCommand(flags: EvalFlags, io: CliIo): Promise<number> {
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

export function evalCommand(io: CliIo, state: RunState): Command {
  const command = new Command("eval")
    .description("Run evaluation corpora through the pipeline and write a JSONL run record (and an HTML report).")
    .requiredOption("--corpus <file>", "corpus JSON (array of cases or {cases:[...]}); repeat for several", collect)
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
      state.exitCode = await runEvalCommand(flags, io);
    });
}
