// `little-canary demo`: the replay/live contrast demonstration (docs/demo.md).
// Bare `demo` is replay. Replay reads a capture (`--capture`), never the network and never
// LITTLE_CANARY_TIMEOUT; this package ships no capture, so bare `demo` is REPLAY UNAVAILABLE
// (exit 2). Live checks its arguments before any request, discloses what will be sent, then
// talks to a loopback Ollama only. Exit codes: 0 verified, 1 a complete run that disagrees,
// 2 usage error, unavailable, or incomplete.
import { Command, Option } from "commander";
import { resolveCanaryTimeout } from "../../src/config/timeout.js";
import { runLive } from "../../src/demo/live.js";
import { DemoArgumentError, validateDemoBackend, validateDemoModel, validateLiveEndpoint } from "../../src/demo/live-endpoint.js";
import { demoExitCode, type DemoOutcome, type RecordResult } from "../../src/demo/outcome.js";
import { captureFromLive, writeCapture } from "../../src/demo/record.js";
import { demoJson, liveDisclosureJson, liveDisclosureLines, liveResultLines, replayLines, label } from "../../src/demo/render.js";
import { runReplay } from "../../src/demo/replay.js";
import { UsageError } from "../../src/core/errors.js";
import type { CliIo } from "../io.js";
import { writeOut } from "../io.js";
import { timeoutArg } from "../options.js";
import type { RunState } from "../run-state.js";

export interface DemoFlags {
  replay?: boolean;
  live?: boolean;
  capture?: string;
  record?: string;
  backend: string;
  model: string;
  endpoint: string;
  timeout?: number;
  json?: boolean;
}

const lines = (items: readonly string[]): string => items.map((line) => `${line}\n`).join("");

async function finish(io: CliIo, flags: DemoFlags, outcome: DemoOutcome, modelCall: boolean, human: string[], exitCode: 0 | 1 | 2): Promise<number> {
  if (flags.json) await writeOut(io.stdout, `${demoJson(outcome, modelCall, exitCode)}\n`);
  else await writeOut(io.stdout, lines(human));
  return exitCode;
}

async function runReplayCommand(flags: DemoFlags, io: CliIo): Promise<number> {
  const outcome = await runReplay({
    ...(flags.capture !== undefined ? { capturePath: flags.capture } : {}),
    onInternalError: (where, errorClass) => void io.stderr.write(`demo: replay ${where} failed (${errorClass})\n`),
  });
  return finish(io, flags, outcome, false, replayLines(outcome), demoExitCode(outcome));
}

async function runLiveCommand(flags: DemoFlags, io: CliIo): Promise<number> {
  let endpoint: string;
  let model: string;
  try {
    validateDemoBackend(flags.backend);
    endpoint = validateLiveEndpoint(flags.endpoint);
    model = validateDemoModel(flags.model);
  } catch (error) {
    if (error instanceof DemoArgumentError) {
      await writeOut(io.stderr, `DEMO ERROR: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const timeoutSeconds = resolveCanaryTimeout(flags.timeout, io.env);
  const outcome = await runLive({
    endpoint,
    model,
    timeoutSeconds,
    onEvent: async (event) => {
      if (event.kind === "disclosure") {
        if (flags.json) await writeOut(io.stderr, `${liveDisclosureJson(endpoint, model)}\n`);
        else await writeOut(io.stdout, lines(liveDisclosureLines(endpoint, model)));
      } else if (!flags.json) {
        await writeOut(io.stdout, `${label("MODEL_SHA", event.digest)}\n`);
      }
    },
  });
  // The capture is written (or not) before anything is printed, so the JSON's exit_code is the
  // process's exit code.
  const record = flags.record === undefined ? "not_requested" : await recordCapture(flags.record, outcome, io);
  return finish(io, flags, outcome, outcome.modelCall, liveResultLines(outcome), demoExitCode(outcome, record));
}

async function recordCapture(path: string, outcome: DemoOutcome, io: CliIo): Promise<RecordResult> {
  const capture = captureFromLive(outcome, new Date());
  if (capture === null) {
    await writeOut(io.stderr, "DEMO ERROR: no capture recorded: only a verified live contrast is recorded\n");
    return "not_recorded";
  }
  try {
    await writeCapture(path, capture);
  } catch {
    await writeOut(io.stderr, `DEMO ERROR: the capture file ${path} could not be written\n`);
    return "write_failed";
  }
  await writeOut(io.stderr, `demo: capture recorded in ${path} (payload_sha256 ${capture.payload_sha256})\n`);
  return "recorded";
}

export async function runDemo(flags: DemoFlags, io: CliIo): Promise<number> {
  if (flags.replay && flags.live) throw new UsageError("--replay and --live cannot be combined");
  if (flags.live && flags.capture !== undefined) throw new UsageError("--capture belongs to replay, not --live");
  if (!flags.live && flags.record !== undefined) throw new UsageError("--record needs --live");
  return flags.live ? runLiveCommand(flags, io) : runReplayCommand(flags, io);
}

export function demoCommand(io: CliIo, state: RunState): Command {
  return new Command("demo")
    .description("Show the canary contrast: replay a recorded capture (default) or run it live against a loopback Ollama.")
    .option("--replay", "replay a recorded capture (the default)")
    .option("--live", "send the fixed clean/attack pair to a loopback Ollama")
    .option("--capture <path>", "capture file to replay (little-canary-demo-replay/v1)")
    .option("--record <path>", "with --live: write a verified run as a capture file")
    .addOption(new Option("--backend <name>", "live backend").default("ollama"))
    .option("--model <tag>", "live canary model", "qwen2.5:1.5b")
    .option("--endpoint <url>", "live Ollama origin (a literal loopback IP over http)", "http://127.0.0.1:11434")
    .option("--timeout <seconds>", "live per-call timeout (default: $LITTLE_CANARY_TIMEOUT, else 600)", timeoutArg)
    .option("--json", "print one little-canary-demo/v1 JSON line instead of text")
    .addHelpText(
      "after",
      `
This package ships no capture: record one where Ollama runs, then replay it anywhere.
Replay calls no model and sends nothing; REPLAY VERIFIED means this build's analyzer reproduces
the recorded verdicts for the recorded replies, not that any model is safe today.

Exit codes: 0 verified; 1 a complete run that disagrees (changed analyzer result, no contrast);
2 usage error, no capture, integrity failure, backend/model unavailable, incomplete run, or
--record that wrote no capture. With --json, "exit_code" is always the process exit code.

Examples:
  little-canary demo --live --record capture.json     # needs ollama serve + ollama pull qwen2.5:1.5b
  little-canary demo --replay --capture capture.json
  little-canary demo --replay --capture capture.json --json`,
    )
    .action(async (flags: DemoFlags) => {
      state.exitCode = await runDemo(flags, io);
    });
}
