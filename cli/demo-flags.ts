// The flags of `little-canary demo` and the `runDemoCommand` options they ask for, after the
// combinations that make no sense are refused.
import { UsageError } from "../src/core/errors.js";
import type { DemoCommandOptions } from "../src/demo/command.js";
import type { CliIo } from "./io.js";

export interface DemoFlags {
  replay?: boolean;
  live?: boolean;
  capture?: string;
  record?: string;
  backend: string;
  model: string;
  endpoint: string;
  timeout?: number;
  json?: boolean;
}

type FlagOptions = Pick<DemoCommandOptions, "live" | "capturePath" | "recordPath" | "backend" | "model" | "endpoint" | "timeoutSeconds" | "env">;

/** The demo options the flags ask for; throws UsageError for a combination that makes no sense. */
export function demoOptionsFromFlags(flags: DemoFlags, io: CliIo): FlagOptions {
  if (flags.replay && flags.live) throw new UsageError("--replay and --live cannot be combined");
  if (flags.live && flags.capture !== undefined) throw new UsageError("--capture belongs to replay, not --live");
  if (!flags.live && flags.record !== undefined) throw new UsageError("--record needs --live");
  return {
    live: flags.live === true,
    ...(flags.capture !== undefined ? { capturePath: flags.capture } : {}),
    ...(flags.record !== undefined ? { recordPath: flags.record } : {}),
    backend: flags.backend,
    model: flags.model,
    endpoint: flags.endpoint,
    ...(flags.timeout !== undefined ? { timeoutSeconds: flags.timeout } : {}),
    env: io.env,
  };
}
