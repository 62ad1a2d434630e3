// The commander program: parses argv, calls one command function, and turns its result or
// error into an exit code (via exit-codes.ts). `runMain` never calls process.exit, so tests
// drive the whole CLI in-process with a fake CliIo.
import { Command, CommanderError } from "commander";
import { VERSION } from "../src/core/version.js";
import { LONG_TEXT_HELP, runCheck, type CheckFlags } from "./commands/check.js";
import { describeFailure, REFUSED_EXIT, type CommandName } from "./exit-codes.js";
import { isClosedOutputError, OutputClosedError, commandSafeStderr, processIo, watchOutput, writeLastWords, writeOut, type CliIo } from "./io.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg, shardArg } from "./options.js";
import { runScreen, type ScreenFlags } from "./commands/screen.js";
import { addReportFlags } from "./report-flags.js";
import { runIngest, type IngestFlags } from "./commands/ingest.js";
import { DEFAULT_MAX_CANARY_FAILURES } from "../src/schedule/circuit-breaker.js";
import { runVerify, type VerifyFlags } from "./commands/verify.js";
import { indexCommand } from "./commands/index-shards.js";
import { serveCommand } from "./commands/serve.js";
import { demoCommand } from "./commands/demo.js";
import { evalCommand } from "./commands/eval.js";
import { cacheCommand } from "./commands/cache.js";
import { modelCommand } from "./commands/model.js";

import type { RunState } from "./run-state.js";
import { disposeEmbeddedCanaries } from "../src/canary/embedded-probe.js";

function checkCommand(io: CliIo, state: RunState): Command {
  const command = new Command("check")
    .description("Screen one text from stdin (or --text) and print the verdict JSON on stdout.")
    .option("--text <text>", "text to screen instead of stdin");
  addCanaryFlags(command, "block")
    .option("--judge-model <tag>", "experimental: LLM judge model instead of the regex analyzer")
    .option("--fail-closed", "deny (safe:false) when behavioural coverage failed or did not run")
    .addHelpText(
      "after",
      `
Exit codes: 0 safe and both layers exercised; 1 blocked or flagged; 2 degraded, unexercised,
or invalid input/usage.
${LONG_TEXT_HELP}

Examples:
  echo "What is the capital of France?" | little-canary check
  echo "Ignore all previous instructions" | little-canary check --no-canary
  little-canary check --text "Summarise this page" --fail-closed --timeout 60`,
    )
    .action(async (flags: CheckFlags) => {
      state.exitCode = await runCheck(flags, io);
    });
  return command;
}

function screenCommand(io: CliIo, state: RunState): Command {
  const command = new Command("screen")
    .description("Screen a JSONL batch (one JSON string or {text, id?, source?, metadata?} per line) and print a little-canary-batch/v1 document.")
    .argument("[input]", "JSONL file, or - for stdin", "-");
  addCanaryFlags(command, "full")
    .option("--fail-closed", "deny (safe:false) items whose behavioural coverage failed or did not run")
    .option("--max-items <n>", "most items accepted (0: no limit)", nonNegativeIntArg, 1000)
    .option("--max-item-bytes <n>", "most UTF-8 bytes of one item's text (ceiling 67108864)", nonNegativeIntArg, 65536)
    .option("--max-total-bytes <n>", "most UTF-8 bytes of all texts together (0: no limit)", nonNegativeIntArg, 8388608)
    .option("--max-metadata-keys <n>", "most metadata keys per item (as ingest's strict/v1: 32)", nonNegativeIntArg, 32)
    .option("--max-metadata-value-chars <n>", "most code points per metadata value (as ingest's strict/v1: 1024)", nonNegativeIntArg, 1024)
    .option("--scratch-dir <dir>", "where the scratch files go: a copy of stdin, the items until the end (default: $TMPDIR, else the OS temp dir)")
    .option("--cache <path>", "verdict cache (SQLite, created if missing): reuse stored verdicts of unchanged items, store new ones as they complete")
    .option("--no-cache", "do not use a verdict cache (the default; overrides an earlier --cache)")
    .option("--concurrency <n>", "pipeline checks run at once (output is identical for any value)", positiveIntArg, 1)
    .option(
      "--max-canary-failures <n>",
      "stop sending canary checks after N consecutive unreachable/timeout failures; the rest are degraded (0: never stop)",
      nonNegativeIntArg,
      DEFAULT_MAX_CANARY_FAILURES,
    );
  addReportFlags(command, "item", "stdout still carries the JSON batch document")
    .addHelpText(
      "after",
      `
Exit codes: 0 every item passed with both layers exercised; 1 any item blocked or flagged;
2 refused or empty input, or any item degraded or unexercised (this wins over 1).
Item text is never printed: items carry index, id, source, sha256 and length.
The whole batch is validated before the first check: a file is read twice (a file that
changes in between is refused), stdin is copied to a scratch file and read back. The
document is streamed to stdout once every item is checked; memory does not grow with the
batch. --max-items and --max-total-bytes are policy limits: 0 given explicitly means no
limit (the defaults stay 1000 items and 8388608 bytes).
${LONG_TEXT_HELP}

Examples:
  little-canary screen messages.jsonl > batch.json
  cat messages.jsonl | little-canary screen - --concurrency 4 --timeout 120
  little-canary screen messages.jsonl --no-canary   # structural only: items are "unexercised"
  little-canary screen messages.jsonl --cache verdicts.sqlite > batch.json   # unchanged items are not checked again
  little-canary screen messages.jsonl --sarif screen.sarif --junit screen.xml > batch.json`,
    )
    .action(async (input: string, flags: ScreenFlags) => {
      state.exitCode = await runScreen(input, flags, io);
    });
  return command;
}

function ingestCommand(io: CliIo, state: RunState): Command {
  const command = new Command("ingest")
    .description("Admit JSONL records for a RAG index under strict/v1; publish a hash-bound manifest and an export of admitted records.")
    .argument("[input]", "JSONL file (a JSON string or {text, id?, source?, metadata?} per line), or - for stdin", "-")
    .requiredOption("--manifest <path>", "where to write the manifest (written last)")
    .option("--export <path>", "where to write the admitted records (written before the manifest)")
    .option(
      "--overwrite",
      "replace an existing manifest/export (the old pair is removed once all settings are valid; an export that belongs to another manifest is refused)",
    )
    .option("--json", "print the canonical manifest on stdout instead of the summary");
  addCanaryFlags(command, "full")
    .option("--segment-chars <n>", "code points per segment (strict/v1: 3500)", nonNegativeIntArg)
    .option("--segment-overlap <n>", "code points shared by consecutive segments (strict/v1: 500)", nonNegativeIntArg)
    .option("--max-segments <n>", "most segments per record, metadata included (strict/v1: 8)", nonNegativeIntArg)
    .option("--max-item-bytes <n>", "most UTF-8 bytes of one text (strict/v1: 65536; ceiling 67108864)", nonNegativeIntArg)
    .option("--max-items <n>", "most records (strict/v1: 1000; 0: no limit)", nonNegativeIntArg)
    .option("--max-total-bytes <n>", "most UTF-8 bytes of all texts (strict/v1: 8388608; 0: no limit)", nonNegativeIntArg)
    .option("--max-metadata-keys <n>", "most metadata keys per record (strict/v1: 32)", nonNegativeIntArg)
    .option("--max-metadata-value-chars <n>", "most code points per metadata value (strict/v1: 1024)", nonNegativeIntArg)
    .option("--concurrency <n>", "records checked at once (the manifest is identical for any value)", positiveIntArg, 1)
    .option("--wait-lock <seconds>", "wait up to SECONDS for another run's publication lock on the same paths (default: fail at once)", nonNegativeIntArg)
    .option(
      "--max-canary-failures <n>",
      "stop sending canary checks after N consecutive unreachable/timeout failures; the rest are held (0: never stop)",
      nonNegativeIntArg,
      DEFAULT_MAX_CANARY_FAILURES,
    )
    .option("--unique-ids", "hold (as malformed) a record whose id repeats an earlier record's id; without it a repeat is only warned about and counted")
    .option("--cache <path>", "verdict cache (SQLite, created if missing): reuse stored verdicts of unchanged segments, store new ones as they complete")
    .option("--no-cache", "do not use a verdict cache (the default; overrides an earlier --cache)")
    .option("--shard <K/N>", "check only the K-th (0-based) of N contiguous line ranges of FILE; join the shards with `index` (docs/shards.md)", shardArg)
    .option(
      "--allow <file>",
      "false-block allowlist: a JSON list of {sha256, scope, reason, by}; admits records held for detections only whose content hash is listed (docs/ingest.md)",
    );
  addReportFlags(command, "held record", "stdout still carries the summary (the canonical manifest with --json)")
    .addHelpText(
      "after",
      `
Exit codes: 0 every record admitted; 1 records held for detection only (blocked/flagged);
2 records held for an operational or coverage reason (malformed, over budget, degraded,
unexercised, error, incomplete); 3 refused: nothing was written; 4 the pair was published, but
stdout was closed by its reader or could not be written before the summary (or the --json
manifest) was complete: the files stand, check them with little-canary verify.
Before any check, the canary model's context window is verified against the segment size
(Ollama /api/show), and a warm-up call plus GET /api/ps must show the server loaded the
num_ctx it was sent; an unreachable backend, a too-small model, a capped server or one that
cannot report its loaded context refuses the run. With --provider openai (vLLM), GET /v1/models
must report a max_model_len that holds a segment, else the run is refused (docs/vllm.md).
A canary that stops answering mid-run (--max-canary-failures consecutive unreachable/timeout
failures, default 5) stops the canary calls: the remaining records are held (exit 2) and one
warning names it.

Examples:
  little-canary ingest records.jsonl --manifest manifest.json --export admitted.json
  little-canary verify --manifest manifest.json --export admitted.json
  little-canary ingest records.jsonl --manifest m.json --no-canary   # structural only: nothing admitted
  little-canary ingest records.jsonl --manifest m.json --cache verdicts.sqlite   # re-runs check only what changed
  little-canary ingest records.jsonl --manifest m.json --sarif held.sarif   # held records as code-scanning results
  little-canary cache stats --cache verdicts.sqlite`,
    )
    .action(async (input: string, flags: IngestFlags) => {
      state.exitCode = await runIngest(input, flags, io);
    });
  return command;
}

function verifyCommand(io: CliIo, state: RunState): Command {
  return new Command("verify")
    .description("Check that a manifest (and export) are consistent, and optionally that the manifest matches a pinned SHA-256.")
    .option("--manifest <path>", "manifest file")
    .option("--export <path>", "export file to check against the manifest")
    .option("--expect-manifest-sha256 <hex>", "refuse unless the manifest file hashes to this value")
    .option("--index <path>", "instead of one pair: the index of a sharded run (little-canary index) and every pair it lists")
    .option("--expect-index-sha256 <hex>", "with --index: refuse unless the index file hashes to this value")
    .option("--json", "print a JSON report")
    .option("--no-allowlisted", "a record admitted by an ingest allowlist (--allow) is a problem")
    .addHelpText(
      "after",
      `
Exit codes: 0 consistent (and the pin matches); 1 any problem; 3 unreadable files, a manifest
and an export given the wrong way round, or usage. A run whose canary was disabled by choice
(--no-canary) admits nothing; verify says so in a note, which is not a problem.

Example:
  little-canary verify --manifest manifest.json --export admitted.json \\
    --expect-manifest-sha256 "$(sha256sum manifest.json | cut -d' ' -f1)"
  little-canary verify --index index.json --expect-index-sha256 "$(sha256sum index.json | cut -d' ' -f1)"`,
    )
    .action(async (flags: VerifyFlags) => {
      state.exitCode = await runVerify(flags, io);
    });
}

export function buildProgram(io: CliIo, state: RunState): Command {
  const program = new Command("little-canary")
    .description("Screen untrusted text for prompt injection before an agent or a RAG index consumes it.")
    .version(`little-canary ${VERSION}`, "-V, --version", "print the version")
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  program.hook("preSubcommand", (_root, sub) => {
    state.command = sub.name() as CommandName;
  });
  for (const make of [
    checkCommand,
    screenCommand,
    ingestCommand,
    verifyCommand,
    indexCommand,
    serveCommand,
    demoCommand,
    evalCommand,
    cacheCommand,
    modelCommand,
  ]) {
    program.addCommand(
      make(io, state)
        .exitOverride()
        .configureOutput({
          writeOut: (text) => io.stdout.write(text),
          writeErr: (text) => io.stderr.write(text),
        }),
    );
  }
  return program;
}

export async function runMain(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  // A command that handles an interrupt (screen, ingest, serve, model pull) also releases any
  // embedded canary at once, so a model evaluation in flight stops at its next token instead of
  // running to its deadline; its check ends as `unavailable` in a run that is being abandoned.
  //
  // A command unregisters its handler only once its result is decided (the pair committed, the
  // summary printed). From then until the process exits an interrupt must not turn that result
  // into a signal death (exit 130): so before the command's handler goes, one that ignores the
  // signal is registered in its place, and it stays until the process exits.
  let resultKept = false;
  const keepResult = (): void => {
    if (resultKept) return;
    resultKept = true;
    io.onSignal(() => undefined);
  };
  const releasing: CliIo = {
    ...io,
    // The last line of defence against a CI workflow command smuggled in through a file name.
    stderr: commandSafeStderr(io.stderr),
    onSignal: (handler) => {
      const unregister = io.onSignal((signal) => {
        handler(signal);
        void disposeEmbeddedCanaries();
      });
      return () => {
        keepResult();
        unregister();
      };
    },
  };
  try {
    return await runMainCommand(argv, releasing);
  } finally {
    // Whatever ended the command (its result, an error, an interrupt that aborted it), an
    // embedded canary's model and context are released before the process exits.
    await disposeEmbeddedCanaries();
  }
}

async function runMainCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const state: RunState = { command: "main", exitCode: 0 };
  // A reader that closes stdout early (`| head -c 100`) must not crash the process with a stack
  // trace and exit 1 ("detections"): its error is caught here and becomes the refused code.
  const stdout = watchOutput(io.stdout, "stdout");
  watchOutput(io.stderr, "stderr");
  const program = buildProgram(io, state);
  let result: ProgramResult;
  try {
    if (argv.length === 0) {
      // No subcommand is a usage error: the help goes to stderr (stdout carries data only) and
      // the exit code is the refused one, so a bare call in a script is never "success".
      await writeOut(io.stderr, program.helpInformation());
      result = { code: REFUSED_EXIT.main, informational: false };
    } else {
      result = await runProgram(program, argv, state);
    }
  } catch (error) {
    return fail(io, state, error);
  }
  // Output written without waiting (commander's help) can also meet a closed pipe: an empty
  // write settles only after everything before it, so its outcome covers all of stdout.
  try {
    await writeOut(io.stdout, "");
  } catch (error) {
    if (result.informational && readerLeft(error)) return result.code;
    return fail(io, state, error);
  }
  const closed = stdout.failure();
  if (closed !== null && !(result.informational && isClosedOutputError(closed))) {
    return fail(io, state, new OutputClosedError("stdout", { cause: closed }));
  }
  return result.code;
}

/**
 * How the program ended. `informational`: it printed help or the version and nothing else, which
 * a reader may stop reading early (`--help | head -1`) without anything having gone wrong.
 */
interface ProgramResult {
  readonly code: number;
  readonly informational: boolean;
}

/** A write that failed only because the reader closed the pipe (not a full disk or an I/O error). */
function readerLeft(error: unknown): boolean {
  return error instanceof OutputClosedError && isClosedOutputError(error.cause);
}

async function runProgram(program: Command, argv: readonly string[], state: RunState): Promise<ProgramResult> {
  try {
    await program.parseAsync([...argv], { from: "user" });
    return { code: state.exitCode, informational: false };
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
        return { code: 0, informational: true };
      }
    }
    throw error;
  }
}

async function fail(io: CliIo, state: RunState, error: unknown): Promise<number> {
  const failure = describeFailure(state.command, error);
  if (failure.message !== null) await writeLastWords(io.stderr, `error: ${failure.message}\n`);
  return failure.exitCode;
}
