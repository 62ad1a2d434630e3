// Command-line values of the benchmarks: a bad value names the benchmark and the flag, and
// exits 2 (usage) before anything runs.
import { parseArgs } from "node:util";

/** `text` as a positive integer, or a usage line on stderr and exit 2. */
export function positiveIntegerArg(bench: string, name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    console.error(`${bench}: --${name} must be a positive integer`);
    process.exit(2);
  }
  return n;
}

/** The flags a benchmark takes, as `node:util` parseArgs describes them (all long, no positionals). */
type BenchOptions = Record<string, { readonly type: "string" | "boolean"; readonly default?: string | boolean }>;

/** The parsed values of `options`: a string or boolean per flag, undefined when absent without a default. */
type BenchValues<T extends BenchOptions> = {
  readonly [K in keyof T]: T[K]["type"] extends "boolean"
    ? boolean | (T[K]["default"] extends boolean ? never : undefined)
    : string | (T[K]["default"] extends string ? never : undefined);
};

/**
 * A benchmark's command line, read strictly: `--help` prints `usage` and exits 0; an unknown flag,
 * a flag without its value or a stray argument names the benchmark, says what was wrong and
 * exits 2 (usage) before anything runs, instead of a stack trace or a flag ignored in silence.
 */
export function benchArgs<T extends BenchOptions>(bench: string, usage: string, options: T, argv: readonly string[] = process.argv.slice(2)): BenchValues<T> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as unknown as BenchValues<T>;
  } catch (error) {
    console.error(`${bench}: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}
