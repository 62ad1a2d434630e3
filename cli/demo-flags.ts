// The flags of `little-canary demo` and the `demo` verb's settings they ask for, after the
// combinations that make no sense are refused and the older names (--model, --endpoint) are
// reconciled with the current ones.
import { UsageError } from "../src/core/errors.js";
import type { DemoArgumentError, DemoOptions } from "../src/verbs/demo.js";
import { oneSetting } from "./flags.js";

export interface DemoFlags {
  replay?: boolean;
  live?: boolean;
  capture?: string;
  record?: string;
  backend: string;
  /** `--canary-model`, the name every command uses. */
  canaryModel?: string;
  /** `--ollama-url`, the name every command uses. */
  ollamaUrl?: string;
  /** `--model`: the older name of --canary-model, kept as an alias. */
  model?: string;
  /** `--endpoint`: the older name of --ollama-url, kept as an alias. */
  endpoint?: string;
  timeout?: number;
  json?: boolean;
}

/** The demo settings the flags ask for; throws UsageError for a combination that makes no sense. */
export function demoSettingsFromFlags(flags: DemoFlags): Omit<DemoOptions, "io"> {
  if (flags.replay && flags.live) throw new UsageError("--replay and --live cannot be combined");
  if (flags.live && flags.capture !== undefined) throw new UsageError("--capture belongs to replay, not --live");
  if (!flags.live && flags.record !== undefined) throw new UsageError("--record needs --live");
  const canaryModel = oneSetting(flags.canaryModel, flags.model, "--canary-model", "--model", "the older name");
  const ollamaUrl = oneSetting(flags.ollamaUrl, flags.endpoint, "--ollama-url", "--endpoint", "the older name");
  return {
    live: flags.live === true,
    ...(flags.capture !== undefined ? { capture: flags.capture } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    backend: flags.backend,
    ...(canaryModel !== undefined ? { canaryModel } : {}),
    ...(ollamaUrl !== undefined ? { ollamaUrl } : {}),
    ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
    ...(flags.json === true ? { json: true } : {}),
  };
}

/**
 * The flag a refusal of `setting` is about, as the user typed it: an older name when only that
 * one was given, so the message points at what is on their command line.
 */
export function demoFlagName(setting: DemoArgumentError["setting"], flags: DemoFlags): string {
  switch (setting) {
    case "endpoint":
      return flags.ollamaUrl === undefined && flags.endpoint !== undefined ? "--endpoint" : "--ollama-url";
    case "model":
      return flags.canaryModel === undefined && flags.model !== undefined ? "--model" : "--canary-model";
    case "backend":
      return "--backend";
    case "recordPath":
      return "--record";
  }
}
