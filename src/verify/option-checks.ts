// The argument checks every verify entry point shares (verifyFiles, verifyExport, verifyShardIndex,
// buildShardIndex): a value of the wrong type is a UsageError naming the option, never a raw
// TypeError from deep inside, an unreadable-file problem, or an option quietly read as false.
import { UsageError } from "../core/errors.js";

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
