// The models `little-canary model pull` knows, pinned by URL (an exact repository revision),
// size and SHA-256, and the cache directory they are kept in. `--canary embedded` without a
// path uses the default model from that directory, under its pinned SHA-256.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError } from "../core/errors.js";

/** A downloadable model: where it comes from and what its bytes must hash to. */
export interface PinnedModel {
  /** The name `model pull NAME` takes. */
  readonly name: string;
  /** The file name in the cache directory. */
  readonly file: string;
  /** Download URL at a fixed revision (a moved branch cannot change what is fetched). */
  readonly url: string;
  /** Lowercase hex SHA-256 of the file: its identity, checked before the file is cached. */
  readonly sha256: string;
  /** Exact size in bytes, or null when unknown; a download larger than this is refused. */
  readonly size: number | null;
  /** The weights' license, by its SPDX name. */
  readonly license: string;
}

/**
 * Qwen2.5-1.5B-Instruct, Q4_K_M quantization, from the Qwen organisation's own GGUF repository at
 * revision 91cad51170dc346986eccefdc2dd33a9da36ead9 (Apache-2.0). The size and SHA-256 are the
 * values published for that file; `model pull` refuses any other bytes.
 */
export const DEFAULT_EMBEDDED_MODEL: PinnedModel = Object.freeze({
  name: "qwen2.5-1.5b-instruct-q4_k_m",
  file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
  url: "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf",
  sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
  size: 1_117_320_736,
  license: "Apache-2.0",
});

/** Every model `model pull` knows, by name. */
export const PINNED_MODELS: readonly PinnedModel[] = Object.freeze([DEFAULT_EMBEDDED_MODEL]);

/** The pinned model named `name` (default: the default model); ConfigError listing the known names otherwise. */
export function pinnedModel(name?: string): PinnedModel {
  if (name === undefined) return DEFAULT_EMBEDDED_MODEL;
  const found = PINNED_MODELS.find((model) => model.name === name);
  if (found === undefined) throw new ConfigError(`unknown model '${name.slice(0, 80)}'; known: ${PINNED_MODELS.map((m) => m.name).join(", ")}`);
  return found;
}

/** The environment variable that moves the model cache. */
export const MODEL_DIR_ENV = "LITTLE_CANARY_MODEL_DIR";

/**
 * Where pulled models are kept: `dir` when given (`--model-dir`), else $LITTLE_CANARY_MODEL_DIR,
 * else `$XDG_CACHE_HOME/little-canary/models`, else `~/.cache/little-canary/models`
 * (`%LOCALAPPDATA%\little-canary\models` on Windows).
 */
export function modelCacheDir(env: Readonly<Record<string, string | undefined>> = process.env, dir?: string, cwd: string = process.cwd()): string {
  if (dir !== undefined && dir.trim() !== "") return resolve(cwd, dir);
  const fromEnv = env[MODEL_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return resolve(cwd, fromEnv);
  const xdg = env["XDG_CACHE_HOME"];
  if (xdg !== undefined && xdg.trim() !== "") return join(resolve(xdg), "little-canary", "models");
  if (process.platform === "win32" && env["LOCALAPPDATA"]) return join(env["LOCALAPPDATA"], "little-canary", "models");
  return join(homedir(), ".cache", "little-canary", "models");
}

/** The path a pinned model is cached at in `dir`. */
export function cachedModelPath(dir: string, model: PinnedModel = DEFAULT_EMBEDDED_MODEL): string {
  return join(dir, model.file);
}
