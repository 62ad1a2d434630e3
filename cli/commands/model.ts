// `little-canary model pull [NAME] [--model-dir DIR] [--from URL]`: flags → `pullModel`
// (src/canary/embedded-download.ts: pinned SHA-256, resume, atomic cache) → one JSON line on
// stdout. Progress is drawn on stderr only when it is a TTY. Exit 0 when the model is cached and
// verified; 2 (refused) for anything else, with a partial download kept when it can resume.
import { Command } from "commander";
import { modelCacheDir, MODEL_DIR_ENV, PINNED_MODELS, pinnedModel } from "../../src/canary/embedded-models.js";
import { UsageError } from "../../src/core/errors.js";
import { writeOut, type CliIo } from "../io.js";
import { createProgress } from "../progress.js";
import type { RunState } from "../run-state.js";

interface PullFlags {
  modelDir?: string;
  from?: string;
}

function mirrorUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError("--from must be an http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError("--from must be an http or https URL");
  if (url.username !== "" || url.password !== "") throw new UsageError("--from must not contain credentials");
  return raw;
}

/** Defines `model` and its subcommand `pull`. */
export function define(io: CliIo, state: RunState): Command {
  const pull = new Command("pull")
    .description("Download a pinned embedded-canary model into the model cache, verified by its SHA-256.")
    .argument("[name]", `model to pull (known: ${PINNED_MODELS.map((m) => m.name).join(", ")}; default: the first)`)
    .option("--model-dir <dir>", `model cache directory (default: $${MODEL_DIR_ENV}, else $XDG_CACHE_HOME/little-canary/models)`)
    .option("--from <url>", "download from this mirror instead of the pinned URL (the pinned SHA-256 still applies)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .action(async (name: string | undefined, flags: PullFlags) => {
      const { pullModel } = await import("../../src/canary/embedded-download.js");
      const model = pinnedModel(name);
      const controller = new AbortController();
      const unregister = io.onSignal(() => controller.abort());
      const progress = createProgress(io, `model pull ${model.name} (bytes)`);
      try {
        const result = await pullModel({
          model,
          dir: modelCacheDir(io.env, flags.modelDir, io.cwd),
          ...(flags.from !== undefined ? { url: mirrorUrl(flags.from) } : {}),
          onProgress: (received, total) => progress.update(received, total ?? received),
          signal: controller.signal,
        });
        progress.finish();
        const line = { model: model.name, license: model.license, path: result.path, sha256: result.sha256, bytes: result.bytes };
        await writeOut(io.stdout, `${JSON.stringify({ ...line, resumed_from: result.resumedFrom, already_present: result.alreadyPresent })}\n`);
        state.exitCode = 0;
      } finally {
        progress.finish();
        unregister();
      }
    });
  return new Command("model")
    .description("Manage models for the embedded canary (--canary embedded, docs/embedded.md).")
    .addCommand(pull)
    .action(() => {
      throw new UsageError("model needs a subcommand: pull (see little-canary model --help)");
    });
}
