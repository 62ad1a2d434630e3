// `little-canary eval`: flags → the `evaluate` verb (runs the corpus in one mode, writes the
// headless JSONL: header, one line per case, completion line, and optionally a static HTML
// report) → a short
// human summary on stdout with counts and rates only (case text is never printed). Usage,
// loading and backend errors exit 2 (cli/exit-codes.ts), and so does a run that scored no case.
import { Command, Option } from "commander";
import { DEFAULT_EVAL_TIMEOUT_SECONDS, TIMEOUT_ENV } from "../../src/verbs/defaults.js";
import type { EvalFlags } from "../eval-flags.js";
import { addPoolFlags, addProviderFlags, collectValue, thresholdArg, timeoutArg } from "../flags.js";
import { EVAL_HELP } from "../help.js";
import { abortOnSignals, writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";

/** Runs the evaluation, prints its summary and returns the exit code. */
export async function run(flags: EvalFlags, io: CliIo): Promise<number> {
  const [{ evaluate }, { evalJudge, evalModel, refuseSharedEvalFiles }, { evalBanner, formatSummary }, { verbIo }] = await Promise.all([
    import("../../src/verbs/eval.js"),
    import("../eval-flags.js"),
    import("../eval-output.js"),
    import("../verb-io.js"),
  ]);
  const { canaryModel: _canaryModel, judgeModel: _judgeModel, judge: _judge, ...settings } = flags;
  const model = evalModel(flags);
  const judge = evalJudge(flags);
  await refuseSharedEvalFiles(flags, io);
  // The first interrupt stops the run at once (a call in flight is dropped, see runEval); a
  // second one ends the process whatever is still running.
  const interrupt = abortOnSignals(io);
  try {
    const { summary, header } = await evaluate({
      ...settings,
      ...(model === undefined ? {} : { model }),
      ...(judge === undefined ? {} : { judge, judgeFlag: flags.judge === undefined ? ("--judge-model" as const) : ("--judge" as const) }),
      io: verbIo(io, { progress: "eval" }),
      signal: interrupt.signal,
    });
    await writeOut(io.stdout, (header === null ? "" : evalBanner(header)) + formatSummary(summary, flags.output, flags.report ?? null));
    // A run that scored no case measured nothing (a canary that never answered usably): not 0.
    if (summary.total > 0 && summary.scored === 0) {
      await writeOut(io.stderr, `error: no case was scored (${summary.unscored} unscored, see the summary); nothing was measured\n`);
      return 2;
    }
    return 0;
  } finally {
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
    .option("--canary-model <tag>", "the same as --model, under the name the other commands use")
    .option("--judge <tag>", "experimental LLM judge instead of the regex analyzer (canary modes only)")
    .option("--judge-model <tag>", "the same as --judge, under the name check uses")
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
