// The tiny GGUF of scripts/tiny-gguf-model.ts, written into a fresh temp directory, and whether
// the optional engine (node-llama-cpp) is installed here. Tests that need the engine are skipped
// with a message when it is absent; CI installs it (`npm run embedded:install`), so they run there.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TinyGgufOptions, tinyGguf } from "../../scripts/tiny-gguf-model.js";

/** A generated model file and its SHA-256. */
export interface TinyModel {
  readonly dir: string;
  readonly path: string;
  readonly sha256: string;
}

/** Writes the tiny model for `options` into a new temp directory. */
export function writeTinyModel(options: TinyGgufOptions = {}, name = "tiny.gguf"): TinyModel {
  const dir = mkdtempSync(join(tmpdir(), "lc-gguf-"));
  const bytes = tinyGguf(options);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { dir, path, sha256: createHash("sha256").update(bytes).digest("hex") };
}

const ENGINE = "node-llama-cpp";

/** True when node-llama-cpp can be imported here (a variable specifier: no types are needed). */
export async function engineInstalled(): Promise<boolean> {
  try {
    await import(ENGINE);
    return true;
  } catch {
    return false;
  }
}

/** Printed when the engine tests are skipped. */
export const ENGINE_SKIP_MESSAGE = "node-llama-cpp is not installed: the embedded-canary engine tests are skipped (run `npm run embedded:install`)";
