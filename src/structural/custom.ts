// Caller-supplied `(pattern, reason)` pairs (the fourth check, after the built-in rules). A string
// is compiled without flags, as the Python package does; a RegExp keeps its flags but `g`/`y`
// (their `lastIndex` would make repeated checks disagree). A pattern that does not compile is
// skipped and reported through `onWarning` (never printed), so one typo does not disable the
// filter; a malformed entry throws UsageError. Backtracking cost is the caller's responsibility.

import { UsageError } from "../core/errors.js";

/** A caller-supplied pattern and the reason it reports. */
export interface CustomPattern {
  readonly pattern: string | RegExp;
  readonly reason: string;
}

/** A custom pattern as the filter runs it. */
export type CompiledCustomPattern = Omit<CustomPattern, "pattern"> & { readonly re: RegExp };

export function compileCustomPatterns(
  patterns: ReadonlyArray<CustomPattern> | undefined,
  onWarning: (message: string) => void,
): readonly CompiledCustomPattern[] {
  if (patterns === undefined) return Object.freeze([]);
  if (!Array.isArray(patterns)) throw new UsageError("customPatterns must be an array");
  const compiled: CompiledCustomPattern[] = [];
  patterns.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null) {
      throw new UsageError(`customPatterns[${index}] must be an object with pattern and reason`);
    }
    const { pattern, reason } = entry as { pattern?: unknown; reason?: unknown };
    if (typeof reason !== "string" || reason.length === 0) {
      throw new UsageError(`customPatterns[${index}].reason must be a non-empty string`);
    }
    if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
      throw new UsageError(`customPatterns[${index}].pattern must be a string or a RegExp`);
    }
    try {
      // Only a string can fail to compile: a RegExp's own source is valid under its flags less g/y.
      compiled.push({ re: typeof pattern === "string" ? new RegExp(pattern) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "")), reason });
    } catch (err) {
      const detail = err instanceof Error ? err.message : "invalid regular expression";
      onWarning(`customPatterns[${index}] skipped: ${detail}`);
    }
  });
  return Object.freeze(compiled);
}
