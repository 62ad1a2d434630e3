// The one place where outcomes become process exit codes. A usage or configuration error exits
// with the command's "refused" code, so scripts can tell "did not run" from a result. Library
// errors carry a stable `code` (src/errors.ts); ERROR_OUTCOME says what each one means here.
import { CommanderError } from "commander";
import { AfterPublicationError, LittleCanaryError, type LittleCanaryErrorCode } from "../src/core/errors.js";
import type { IngestOutcomeCode } from "../src/ingest/run-summary.js";
import { OutputClosedError } from "./io.js";

export type CommandName = "main" | "check" | "screen" | "ingest" | "verify" | "index" | "serve" | "demo" | "eval" | "cache" | "model";

export const REFUSED_EXIT: Readonly<Record<CommandName, number>> = {
  main: 2,
  check: 2,
  screen: 2,
  ingest: 3,
  verify: 3,
  index: 3,
  serve: 2,
  demo: 2,
  eval: 2,
  cache: 2,
  model: 2,
};

/** How an error ends a command; "refused" is the only kind today. */
type ErrorOutcome = "refused";

const OUTCOME_EXIT: Readonly<Record<ErrorOutcome, (command: CommandName) => number>> = {
  refused: (command) => REFUSED_EXIT[command],
};

/**
 * What each stable error code ends a command as. Every one is "refused": the command did not
 * produce its result (bad flags or configuration, a refused input, an unverifiable backend, a
 * failed publication, an unreadable file), which is never a result code such as 0 or 1.
 */
const ERROR_OUTCOME: Readonly<Record<LittleCanaryErrorCode, ErrorOutcome>> = {
  usage: "refused",
  config: "refused",
  input_refused: "refused",
  backend: "refused",
  publish: "refused",
  verification: "refused",
  io: "refused",
  // serve maps its own bind failure first (SERVE_ERROR_EXIT); anywhere else it is a refusal.
  bind_failed: "refused",
  demo_argument: "refused",
};

/** `ingest`: 0 every record admitted, 1 held for detection only, 2 held for an operational reason. */
export const INGEST_EXIT: Readonly<Record<IngestOutcomeCode, number>> = { 0: 0, 1: 1, 2: 2 };

/**
 * A command whose result was already committed when its output failed (ingest: the pair was
 * published, then stdout was closed by its reader or could not be written, so the summary or the
 * `--json` manifest on stdout is incomplete; or a CI report could not be written,
 * AfterPublicationError). Neither the run's outcome (the output that would say it is cut short)
 * nor "refused, nothing written" (3, a lie: the pair stands): ingest exits 4.
 */
const OUTPUT_FAILED_AFTER_COMMIT_EXIT: Readonly<Partial<Record<CommandName, number>>> = { ingest: 4 };

/** `verify`: consistent (and the pin matches), any problem, or a file that could not be read. */
export const VERIFY_EXIT = { consistent: 0, problems: 1, unreadable: REFUSED_EXIT.verify } as const;

/** `index`: written (every pair verified, the shards tile the input), any problem (nothing written), a file that could not be read. */
export const INDEX_EXIT = { written: 0, problems: 1, unreadable: REFUSED_EXIT.index } as const;

/** The exit code of a library error with this stable code, for this command. */
function exitCodeForError(command: CommandName, code: LittleCanaryErrorCode): number {
  // An unknown code (from a newer library) is still a failure, never a result.
  const outcome: ErrorOutcome = (ERROR_OUTCOME as Partial<Record<string, ErrorOutcome>>)[code] ?? "refused";
  return OUTCOME_EXIT[outcome](command);
}

/** Exit code and stderr message for an error that stopped a command. */
export function describeFailure(command: CommandName, error: unknown): { exitCode: number; message: string | null } {
  const refused = REFUSED_EXIT[command];
  if (error instanceof CommanderError) {
    // Commander has already printed its own message (usage text included) to stderr.
    return { exitCode: refused, message: null };
  }
  if ((error instanceof OutputClosedError && error.afterCommit) || error instanceof AfterPublicationError) {
    return { exitCode: OUTPUT_FAILED_AFTER_COMMIT_EXIT[command] ?? refused, message: error.message };
  }
  if (error instanceof LittleCanaryError) return { exitCode: exitCodeForError(command, error.code), message: error.message };
  if (error instanceof TypeError || error instanceof RangeError) {
    return { exitCode: refused, message: `${error.constructor.name}: ${error.message}` };
  }
  const name = error instanceof Error ? error.constructor.name : "unknown error";
  return { exitCode: refused, message: `unexpected failure (${name})` };
}

/** `demo`: an invalid live backend, model or endpoint (DemoArgumentError) exits 2, before any request. */
export const DEMO_ERROR_EXIT = { demo_argument: 2 } as const;

/** `serve`: the loopback port could not be bound (ServerBindError) exits 1. */
export const SERVE_ERROR_EXIT = { bind_failed: 1 } as const;
