// The embedded canary's model files. The models `little-canary model pull` knows are pinned by URL (an exact repository
// revision), size and SHA-256, and cached in one directory; `--canary embedded` without a path uses the default one.
// Any model file's SHA-256 is its identity (a GGUF carries no trustworthy name), checked before the engine sees it; its
// stamp (inode, size, mtime) is compared after hashing and after loading: a file replaced meanwhile refuses the run.
import { createHash, type Hash } from "node:crypto";
import { createReadStream, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, UsageError } from "../core/errors.js";

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

/** Qwen2.5-1.5B-Instruct, Q4_K_M, from Qwen's own GGUF repository at a fixed revision (Apache-2.0); size and SHA-256 as published for that file. */
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
 * Where pulled models are kept: `dir` when given (`--model-dir`), else $LITTLE_CANARY_MODEL_DIR, else
 * `$XDG_CACHE_HOME/little-canary/models`, else `~/.cache/little-canary/models` (`%LOCALAPPDATA%\little-canary\models` on Windows).
 * An empty or blank `dir` is a UsageError naming it as `label`; an empty or blank environment variable counts as unset.
 */
export function modelCacheDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  dir?: string,
  cwd: string = process.cwd(),
  label = "--model-dir",
): string {
  if (dir !== undefined) {
    // An explicit empty value is a mistake (an unset shell variable in `--model-dir "$DIR"`), never a request for the
    // default: falling back would write a 1 GB model somewhere the user did not choose.
    if (dir.trim() === "") throw new UsageError(`${label} is empty: give the model directory, or leave ${label} out to use the default one`);
    return resolve(cwd, dir);
  }
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

/** A SHA-256 given as `--canary-sha256`: 64 hex digits (case-insensitive, stored lowercase). */
export function checkModelSha256(value: unknown, name = "--canary-sha256"): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value.trim())) throw new ConfigError(`${name} must be 64 hexadecimal digits (a SHA-256)`);
  return value.trim().toLowerCase();
}

/** What identifies the file on disk between the hash and the load. */
type ModelFileStamp = Readonly<Pick<Stats, "dev" | "ino" | "size" | "mtimeMs">>;

/** The stamp of `path`; throws ConfigError naming the flag when it is not a readable regular file. */
export async function modelFileStamp(path: string, flag = "--canary embedded:PATH"): Promise<ModelFileStamp> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw new ConfigError(`${flag}: the model file cannot be read (${(error as { code?: string }).code ?? "error"})`, { cause: error });
  }
  if (!info.isFile()) throw new ConfigError(`${flag}: the model path is not a regular file`);
  return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
}

/** True when two stamps name the same unchanged file. */
export function sameStamp(a: ModelFileStamp, b: ModelFileStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** Feeds the file at `path` to `hash`, read as a stream (bounded memory for a multi-gigabyte file); returns it. */
export async function hashFile(path: string, hash: Hash = createHash("sha256")): Promise<Hash> {
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash;
}

/** Lowercase hex SHA-256 of the file at `path`. */
export async function fileSha256(path: string): Promise<string> {
  return (await hashFile(path)).digest("hex");
}

/** Proves that `path` holds the file whose SHA-256 is `expected` and returns its stamp; ConfigError, before anything loads it, if not or if it changed. */
export async function verifyModelFile(path: string, expected: string): Promise<ModelFileStamp> {
  const before = await modelFileStamp(path);
  const actual = await fileSha256(path);
  const after = await modelFileStamp(path);
  if (!sameStamp(before, after)) throw new ConfigError("the model file changed while it was being hashed; nothing was loaded");
  if (actual !== expected) {
    throw new ConfigError(`the model file's SHA-256 is ${actual}, not the ${expected} given with --canary-sha256; nothing was loaded`);
  }
  return after;
}
