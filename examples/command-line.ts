// How the runnable examples read their command line: node's parseArgs, plus `--help` (the usage on
// stdout, exit 0) and a mistake (an unknown flag, a missing value: one error line and the usage on
// stderr, exit 2) instead of parseArgs' stack trace. examples/ingest-consumer.ts keeps its own
// copy of these few lines: it is meant to be copied alone into a consumer's project.
import { parseArgs } from "node:util";

/** The flags an example takes: each a string or a boolean. */
export type ExampleFlags = Readonly<Record<string, { readonly type: "string" | "boolean" }>>;

/** What the command line gave for each flag (absent when not given). */
export type ExampleValues<F extends ExampleFlags> = { readonly [K in keyof F]?: F[K]["type"] extends "boolean" ? boolean : string };

/** Where the usage and errors go: the process's own streams unless a test gives others. */
export interface ExampleOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const PROCESS_OUTPUT: ExampleOutput = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };

/** The values of `flags` on the command line (`args`, this process's by default), or the exit code once the usage was printed. */
export function exampleArgs<F extends ExampleFlags>(
  flags: F,
  usage: string,
  args: readonly string[] = process.argv.slice(2),
  output: ExampleOutput = PROCESS_OUTPUT,
): ExampleValues<F> | number {
  try {
    const options: Record<string, { type: "string" | "boolean"; short?: string }> = { ...flags, help: { type: "boolean", short: "h" } };
    const values = parseArgs({ args: [...args], options }).values as Record<string, string | boolean | undefined>;
    if (values["help"] !== true) return values as ExampleValues<F>;
    output.stdout(usage);
    return 0;
  } catch (error) {
    output.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
}
