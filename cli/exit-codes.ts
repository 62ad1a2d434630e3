// The one place where outcomes become process exit codes (decision 5). A usage or configuration
// error exits with the command's "refused" code, so scripts can tell "did not run" from a result.
import { CommanderError } from "commander";
import { LittleCanaryError } from "../src/errors.js";

export type CommandName = "main" | "check" | "screen" | "ingest" | "verify" | "serve" | "demo" | "eval";

export const REFUSED_EXIT: Readonly<Record<CommandName, number>> = {
  main: 2,
  check: 2,
  screen: 2,
  ingest: 3,
  verify: 3,
  serve: 2,
  demo: 2,
  eval: 2,
};

/** Exit code and stderr message for an error that stopped a command. */
export function describeFailure(command: CommandName, error: unknown): { exitCode: number; message: string | null } {
  const refused = REFUSED_EXIT[command];
  if (error instanceof CommanderError) {
    // Commander has already printed its own message (usage text included) to stderr.
    return { exitCode: refused, message: null };
  }
  if (error instanceof LittleCanaryError) return { exitCode: refused, message: error.message };
  if (error instanceof TypeError || error instanceof RangeError) {
    return { exitCode: refused, message: `${error.constructor.name}: ${error.message}` };
  }
  const name = error instanceof Error ? error.constructor.name : "unknown error";
  return { exitCode: refused, message: `unexpected failure (${name})` };
}
