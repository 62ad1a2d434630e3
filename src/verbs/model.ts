// `modelPull`: the library call behind `little-canary model pull`. Its options are resolved once,
// in the order the CLI reports their errors, then `pullModel` runs; progress goes to the reporter.
import { pullModel } from "../canary/embedded-download.js";
import { modelCacheDir, pinnedModel, type PinnedModel } from "../canary/embedded-models.js";
import { UsageError } from "../core/errors.js";
import { parseUrl } from "../core/guards.js";

/** Options of `modelPull`, as a user gives them. */
export interface ModelPullOptions {
  /** The pinned model's name (default: the first pinned model). */
  readonly name?: string;
  /** The model cache directory (default: $LITTLE_CANARY_MODEL_DIR, else the user's cache). */
  readonly modelDir?: string;
  /** A mirror to download from (http or https, no credentials); the pinned SHA-256 still applies. */
  readonly from?: string;
  /** The environment the default cache directory is read from (default: the process's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /** Aborting stops the transfer; its partial file is kept for the next pull. */
  readonly signal?: AbortSignal;
}

/** What a pull tells its caller while it runs. */
export interface ModelPullReporter {
  /** Bytes of `model` on disk so far, and the total when known. */
  progress?(model: PinnedModel, received: number, total: number | null): void;
}

/** A mirror URL, refused (UsageError) unless it is http(s) without credentials. */
function mirrorUrl(raw: string): string {
  const url = parseUrl(raw);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) throw new UsageError("--from must be an http or https URL");
  if (url.username !== "" || url.password !== "") throw new UsageError("--from must not contain credentials");
  return raw;
}

/** Downloads a pinned model into the model cache, verified by its SHA-256 (returns the file and the model); throws ConfigError, UsageError or ModelPullError. */
export async function modelPull(options: ModelPullOptions, reporter: ModelPullReporter = {}) {
  const model = pinnedModel(options.name);
  const result = await pullModel({
    model,
    dir: modelCacheDir(options.env ?? process.env, options.modelDir, options.cwd ?? process.cwd()),
    ...(options.from !== undefined ? { url: mirrorUrl(options.from) } : {}),
    onProgress: (received, total) => reporter.progress?.(model, received, total),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ...result, model };
}
