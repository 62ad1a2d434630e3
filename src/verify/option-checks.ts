// The argument checks every verify entry point shares (verifyFiles, verifyExport, verifyShardIndex,
// buildShardIndex, and the pin of the RAG loaders): a value of the wrong type is a UsageError
// naming the option, never a raw TypeError from deep inside, an unreadable-file problem, or an
// option quietly read as false (or a pin quietly read as no pin).
import { UsageError } from "../core/errors.js";
import { ownPrototypeChain } from "../core/guards.js";

/** `value` when it is a non-empty string, else UsageError naming the option `name`. */
export function pathOption(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`${name} must be a non-empty path string`);
  return value;
}

/** Refuses an optional path (null or undefined: not given) given as anything but a non-empty string. */
export function optionalPathOption(name: string, value: unknown, what = "path string"): void {
  if (value != null && (typeof value !== "string" || value === "")) throw new UsageError(`${name} must be a non-empty ${what}`);
}

/** Refuses an optional flag (null or undefined: not given) given as anything but true or false: "true" or 1 must not read as false. */
export function flagOption(name: string, value: unknown): void {
  if (value != null && typeof value !== "boolean") throw new UsageError(`${name} must be true or false`);
}

/** Refuses an optional callback (null or undefined: not given) given as anything but a function. */
function callbackOption(name: string, value: unknown): void {
  if (value != null && typeof value !== "function") throw new UsageError(`${name} must be a function`);
}

/** Refuses a directory to resolve against (null, undefined or "": the process's) given as anything but a string. */
export function cwdOption(value: unknown): void {
  if (value != null && typeof value !== "string") throw new UsageError("cwd must be a path string");
}

/** Normalises a pin (a manifest's or an index's); throws UsageError naming it `pinName` unless it is 64 hex digits. */
export function normalizePin(pin: string, pinName: string): string {
  const normalized = typeof pin === "string" ? pin.trim().toLowerCase() : "";
  if (!/^[0-9a-f]{64}$/.test(normalized)) throw new UsageError(`${pinName} must be 64 hex digits`);
  return normalized;
}

/**
 * The pin under `key` of a verify call's options, normalised, or null when the caller asked for
 * no pin: the key left out, or null. A key that is present but undefined is refused: that is what
 * `expectManifestSha256: process.env.PIN` gives when the variable is unset, and reading it as "no
 * pin" would verify the pair unpinned while the caller believes it pinned.
 */
export function pinOption(options: object, key: string, pinName: string): string | null {
  // `in`, not an own-key test: a pin on a prototype or behind a getter is a pin as a plain read sees it.
  if (!(key in options)) return null;
  // Except one every object inherits: set on Object.prototype, it pins calls that passed no pin
  // (prototype pollution), and verifying with a pin nobody gave would say `pinned` falsely.
  if (Object.hasOwn(Object.prototype, key) && !ownPrototypeChain(options).some((at) => Object.hasOwn(at, key))) {
    throw new UsageError(`${pinName} is set on Object.prototype, not by this call (prototype pollution?): refusing to verify with a pin nobody passed`);
  }
  const value: unknown = (options as Record<string, unknown>)[key];
  if (value === undefined) {
    throw new UsageError(
      `${pinName} was given as undefined (an unset environment variable?): pass the 64 hex digits of the pin, or null (or no ${pinName} at all) to verify without one`,
    );
  }
  return value === null ? null : normalizePin(value as string, pinName);
}

/** The options verifyFiles and verifyShardIndex share: where paths resolve, what the pin is called, the reading hooks. */
export function checkReadingOptions(options: {
  readonly cwd?: unknown;
  readonly pinName?: unknown;
  readonly onProgress?: unknown;
  readonly onStrictRead?: unknown;
}): void {
  cwdOption(options.cwd);
  optionalPathOption("pinName", options.pinName, "string");
  callbackOption("onProgress", options.onProgress);
  callbackOption("onStrictRead", options.onStrictRead);
}

/**
 * `callback` wrapped so that a throw inside it does not pass for a read failure (the readers it is
 * given to turn any error into "unreadable"): the first error is kept, later calls are skipped,
 * and `rethrow` throws it once the work is done.
 */
export function guardedCallback<A extends unknown[]>(
  callback: ((...args: A) => void) | undefined,
): {
  readonly call: ((...args: A) => void) | undefined;
  readonly rethrow: () => void;
} {
  if (callback == null) return { call: undefined, rethrow: () => {} };
  let failure: { error: unknown } | null = null;
  return {
    call: (...args) => {
      if (failure !== null) return;
      try {
        callback(...args);
      } catch (error) {
        failure = { error };
      }
    },
    rethrow: () => {
      if (failure !== null) throw failure.error;
    },
  };
}
