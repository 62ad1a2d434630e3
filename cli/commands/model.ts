// `little-canary model pull [NAME] [--model-dir DIR] [--from URL]`: flags → `modelPull`
// (src/verbs/model.ts: pinned SHA-256, resume, atomic cache) → one JSON line on stdout.
// Progress is drawn on stderr only when it is a TTY; a partial download that could not be resumed
// and was discarded is a warning on stderr. Exit 0 when the model is cached and verified; 2
// (refused) for anything else, an empty --model-dir included, with a partial download kept when it can resume.
import { Command } from "commander";
import { MODEL_DIR_ENV, PINNED_MODELS } from "../../src/canary/embedded-models.js";
import { UsageError } from "../../src/core/errors.js";
import { MODEL_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import { createProgress, type ProgressReporter } from "../progress.js";
import type { RunState } from "../run-state.js";

interface PullFlags {
  modelDir?: string;
  from?: string;
}

/** Defines `model` and its subcommand `pull`. */
export function define(io: CliIo, state: RunState): Command {
  const pull = new Command("pull")
    .description("Download a pinned embedded-canary model into the model cache, verified by its SHA-256.")
    .argument("[name]", `model to pull (known: ${PINNED_MODELS.map((m) => m.name).join(", ")}; default: the first)`)
    .option("--model-dir <dir>", `model cache directory (default: $${MODEL_DIR_ENV}, else $XDG_CACHE_HOME/little-canary/models)`)
    .option("--from <url>", "download from this mirror instead of the pinned URL (the pinned SHA-256 still applies)")
    .addHelpText("after", MODEL_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .action(async (name: string | undefined, flags: PullFlags) => {
      state.exitCode = await runPull(name, flags, io);
    });
  return new Command("model")
    .description("Manage models for the embedded canary (--canary embedded, docs/embedded.md).")
    .addHelpText("after", MODEL_HELP)
    .addCommand(pull)
    .action(() => {
      throw new UsageError("model needs a subcommand: pull (see little-canary model --help)");
    });
}

/** Pulls one model (`modelPull`), prints its JSON line and returns the exit code. */
async function runPull(name: string | undefined, flags: PullFlags, io: CliIo): Promise<number> {
  const { modelPull } = await import("../../src/verbs/model.js");
  const controller = new AbortController();
  const unregister = io.onSignal(() => controller.abort());
  // Drawn from the first progress report on, once the model (and so the label) is known.
  let progress = null as ProgressReporter | null;
  try {
    const options = { ...(name !== undefined ? { name } : {}), ...flags, env: io.env, cwd: io.cwd, signal: controller.signal };
    const result = await modelPull(options, {
      progress: (model, received, total) => {
        progress ??= createProgress(io, `model pull ${model.name} (bytes)`);
        progress.update(received, total ?? received);
      },
    });
    progress?.finish();
    // A discarded partial download is the user's bytes thrown away: said on stderr, where a script's stdout is untouched.
    if (result.discardedPartial !== null) await writeOut(io.stderr, `warning: ${result.discardedPartial.message}\n`);
    const { model } = result;
    const line = { model: model.name, license: model.license, path: result.path, sha256: result.sha256, bytes: result.bytes };
    await writeOut(io.stdout, `${JSON.stringify({ ...line, resumed_from: result.resumedFrom, already_present: result.alreadyPresent })}\n`);
    return 0;
  } finally {
    progress?.finish();
    unregister();
  }
}
