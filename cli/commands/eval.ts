// `little-canary eval`: run an evaluation corpus through the pipeline in one mode, write the
// headless JSONL (header, one line per case, completion line) and optionally a static HTML report.
// Stdout gets a short human summary with counts and rates only; case text is never printed
// (it appears only in the output files). Usage and loading errors exit 2 (cli/exit-codes.ts).
import { Command, InvalidArgumentError, Option } from "commander";
import { resolveCanaryTimeout, TIMEOUT_ENV } from "../../src/config/timeout.js";
import { runEval, DEFAULT_EVAL_TIMEOUT_SECONDS } from "../../src/eval/run.js";
import type { Rate } from "../../src/eval/rates.js";
import type { EvalMode } from "../../src/eval/score.js";
import type { EvalSummary, KindCounts } from "../../src/eval/summary.js";
import type { RunHeader } from "../../src/eval/records.js";
import { asciiJson } from "../../src/eval/_inert.js";
import type { CliIo } from "../io.js";
import { signalExitCode, writeOut } from "../io.js";
import { timeoutArg } from "../options.js";
import { plural } from "../plural.js";
import { createProgress } from "../progress.js";
import type { RunState } from "../run-state.js";

export interface EvalFlags {
  corpus: string[];
  idsFile?: string;
  mode?: EvalMode;
  model?: string;
  judge?: string;
  threshold: number;
  timeout?: number;
  warmup?: boolean;
  ollamaUrl: string;
  output: string;
  report?: string;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function thresholdArg(raw: string): number {
  const text = raw.trim();
  const value = /^[+]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value > 1) throw new InvalidArgumentError("must be a number from 0 to 1");
  return value;
}

/** --timeout, else LITTLE_CANARY_TIMEOUT (validated like every command), else the harness's 10 s. */
function evalTimeout(flag: number | undefined, env: CliIo["env"]): number {
  if (flag !== undefined) return flag;
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_EVAL_TIMEOUT_SECONDS;
  return resolveCanaryTimeout(undefined, env);
}

function showRate(r: Rate): string {
  if (r.percent === null || r.wilson95 === null) return `-- (0 ${r.of})`;
  return `${r.numerator}/${r.denominator} ${r.of} = ${r.percent.toFixed(1)}% (95% CI ${r.wilson95.low.toFixed(1)}-${r.wilson95.high.toFixed(1)})`;
}

function kindLine(name: string, counts: KindCounts, rates: EvalSummary["rates"], kind: "attack" | "benign"): string {
  const head = `${name}: ${counts.total} total, ${counts.scored} scored, ${counts.unscored} unscored; blocked ${counts.blocked}, passed ${counts.passed}`;
  if (rates === null) return head;
  const mine = rates[kind];
  return `${head}\n  blocked of all:    ${showRate(mine.blocked_of_all)}\n  blocked of scored: ${showRate(mine.blocked_of_scored)}`;
}

export function formatSummary(summary: EvalSummary, outputPath: string, reportPath: string | null): string {
  const lines = [kindLine("attacks", summary.attack, summary.rates, "attack"), kindLine("benign", summary.benign, summary.rates, "benign")];
  if (summary.paired_probe) {
    const p = summary.paired_probe;
    lines.push(
      `paired probe (counts only): positive ${p.positive.blocked} blocked / ${p.positive.not_blocked} not blocked / ${p.positive.unscored} unscored; ` +
        `benign_control ${p.benign_control.blocked} blocked / ${p.benign_control.not_blocked} not blocked / ${p.benign_control.unscored} unscored`,
    );
  }
  if (summary.unscored > 0) {
    const reasons = Object.entries(summary.unscored_reasons)
      .map(([k, v]) => `${asciiJson(k).slice(1, -1)} ${v}`)
      .join(", ");
    lines.push(
      `unscored: ${summary.unscored} of ${summary.total} (${reasons}); they count as neither blocked nor passed and stay in the "of all" denominators`,
    );
  }
  lines.push(`degraded: ${summary.degraded}`);
  lines.push(`saved ${outputPath}`);
  if (reportPath !== null) lines.push(`report ${reportPath}`);
  return `${lines.join("\n")}\n`;
}

function banner(header: RunHeader): string {
  const model = header.model === null ? "none" : `${header.model} (digest ${header.model_digest ?? "unknown"})`;
  return (
    `little-canary eval: mode ${header.mode}, model ${model}, judge ${header.judge ?? "none"}, ` +
    `threshold ${header.threshold}, timeout ${header.timeout_s === null ? "n/a" : `${header.timeout_s}s`}, ${plural(header.total, "case")}\n`
  );
}

export async function runEvalCommand(flags: EvalFlags, io: CliIo): Promise<number> {
  const canaryMode = (flags.mode ?? (flags.model !== undefined ? "pipeline" : "structural-only")) !== "structural-only";
  const controller = new AbortController();
  // The first interrupt stops the run at once (a call in flight is dropped, see runEval); a
  // second one ends the process whatever is still running.
  let interrupts = 0;
  const unregister = io.onSignal((signal) => {
    interrupts++;
    if (interrupts === 1) controller.abort();
    else io.forceExit?.(signalExitCode(signal));
  });
  const progress = createProgress(io, "eval");
  let bannerText = "";
  try {
    const summary = await runEval({
      corpus: flags.corpus,
      idsFile: flags.idsFile ?? null,
      ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
      model: flags.model ?? null,
      judge: flags.judge ?? null,
      threshold: flags.threshold,
      // The environment is read only when a canary will be called (as `demo` does).
      ...(canaryMode ? { timeoutSeconds: evalTimeout(flags.timeout, io.env) } : {}),
      warmup: flags.warmup === true,
      ollamaUrl: flags.ollamaUrl,
      output: flags.output,
      report: flags.report ?? null,
      cwd: io.cwd,
      signal: controller.signal,
      onHeader: (header) => {
        bannerText = banner(header);
      },
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.finish();
    await writeOut(io.stdout, bannerText + formatSummary(summary, flags.output, flags.report ?? null));
    return 0;
  } finally {
    progress.finish();
    unregister();
  }
}

export function evalCommand(io: CliIo, state: RunState): Command {
  return new Command("eval")
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
    .option("--ollama-url <url>", "Ollama endpoint (http or https origin)", "http://127.0.0.1:11434")
    .requiredOption("--output <file>", "JSONL run record: header, one line per case, completion line")
    .option("--report <file>", "also write a self-contained HTML report")
    .addHelpText(
      "after",
      `
Exit codes: 0 the run completed (whatever it measured); 2 usage, corpus or backend error, or
interrupted (the JSONL then has no completion line). Ctrl-C stops the run at once (a canary
call in flight is dropped); a second Ctrl-C exits 130 at once.
Attacks and benign cases are reported separately. A case whose layers did not all run is
unscored: neither blocked nor passed, and still counted in the "of all" denominators.

Examples:
  little-canary eval --corpus prompts.json --mode structural-only --output runs/s.jsonl
  little-canary eval --corpus prompts.json --corpus fp.json --model qwen2.5:1.5b --warmup \\
    --timeout 60 --output runs/p.jsonl --report runs/p.html`,
    )
    .action(async (flags: EvalFlags) => {
      state.exitCode = await runEvalCommand(flags, io);
    });
}
