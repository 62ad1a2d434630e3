// Runs `little-canary eval` in-process through the real runMain (cli/program.ts).
import { runCli } from "./cli.js";

export interface EvalCliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface EvalCliOptions {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  readonly tty?: boolean;
  /** Receives a trigger that simulates Ctrl-C. */
  readonly signals?: { trigger?: () => void };
}

export async function runEvalCli(args: readonly string[], options: EvalCliOptions): Promise<EvalCliRun> {
  const signals: { trigger?: (signal: NodeJS.Signals) => void } = {};
  const run = runCli(["eval", ...args], {
    cwd: options.cwd,
    env: options.env ?? {},
    tty: options.tty ?? false,
    signals,
  });
  if (options.signals) options.signals.trigger = () => signals.trigger?.("SIGINT");
  return run;
}
