// The few typed errors of the library. Expected outcomes (a malformed record, a degraded
// check) are values, not exceptions; these are for calls that cannot go on. Each carries a
// stable `code` that the CLI maps to an exit code in one table (cli/exit-codes.ts).

/** The stable code of a LittleCanaryError. */
export type LittleCanaryErrorCode =
  | "usage" // a caller passed an invalid option or argument
  | "config" // configuration (environment, policy, pipeline) is invalid
  | "input_refused" // the input violates a run-level rule; nothing was screened
  | "backend" // the canary backend could not be verified (context gate)
  | "publish" // publication of output files failed
  | "verification" // a published manifest/export pair failed verification (or was not pinned)
  | "io" // a file could not be read
  | "bind_failed" // a service could not listen on its loopback port (ServerBindError)
  | "demo_argument"; // an invalid `demo --live` backend, model or endpoint (DemoArgumentError)

/** Base class of the library's typed errors: a stable `code` (mapped to an exit code by the CLI) and an optional `cause`. */
export class LittleCanaryError extends Error {
  readonly code: LittleCanaryErrorCode;
  override readonly name: string = "LittleCanaryError";

  constructor(code: LittleCanaryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** An option or argument is invalid (bad mode, non-finite timeout, empty model name, ...). */
export class UsageError extends LittleCanaryError {
  override readonly name = "UsageError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("usage", message, options);
  }
}

/** Configuration from the environment or a policy file is invalid. */
export class ConfigError extends LittleCanaryError {
  override readonly name = "ConfigError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("config", message, options);
  }
}

/**
 * A step after a run's output was committed failed (ingest: a CI report could not be written
 * once the manifest and export were published). The run did not end as it should, but what it
 * committed stands and is complete: `published` says so to a caller that would otherwise take
 * any error for "nothing written".
 */
export class AfterPublicationError extends LittleCanaryError {
  override readonly name = "AfterPublicationError";
  /** Always true: the run's files were published before this failure, and they stand. */
  readonly published = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super("io", message, options);
  }
}

/**
 * The error's class name if it looks like an identifier, so no message text can leak through it;
 * "Error" otherwise, and when merely asking throws (a hostile getter).
 */
export function errorClassName(error: unknown): string {
  if (typeof error !== "object" || error === null) return "Error";
  let name: unknown;
  try {
    name = (error as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    return "Error";
  }
  return typeof name === "string" && /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : "Error";
}

/** The `code` of a Node system error (ENOENT, EACCES, …), or null. */
export function errorCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/** The error's `code` when it has an errno's shape (EACCES, ENOSPC, …), so it is safe to show; else null. */
export function errnoCode(error: unknown): string | null {
  const code = errorCode(error);
  return code !== null && /^E[A-Z]{2,12}$/.test(code) ? code : null;
}
