// The embedded canary's model file: its SHA-256 is the model's identity (a GGUF carries no
// trustworthy name), checked before the engine sees the file. Its stamp (inode, size, mtime) is
// compared after hashing and after loading: a file replaced meanwhile refuses the run.
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { ConfigError } from "../core/errors.js";

/** A SHA-256 given as `--canary-sha256`: 64 hex digits (case-insensitive, stored lowercase). */
export function checkModelSha256(value: unknown, name = "--canary-sha256"): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value.trim())) throw new ConfigError(`${name} must be 64 hexadecimal digits (a SHA-256)`);
  return value.trim().toLowerCase();
}

/** What identifies the file on disk between the hash and the load. */
export interface ModelFileStamp {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The stamp of `path`; throws ConfigError naming the flag when it is not a readable regular file. */
export async function modelFileStamp(path: string, flag = "--canary embedded:PATH"): Promise<ModelFileStamp> {
  let info: Awaited<ReturnType<typeof stat>>;
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

/**
 * Proves that `path` holds the file whose SHA-256 is `expected`, and returns its stamp; throws
 * ConfigError (before anything loads the file) when it does not, or when it changed meanwhile.
 */
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
