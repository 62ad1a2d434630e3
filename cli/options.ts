// The canary flags as SecurityPipeline options, for a command that builds its pipeline itself
// (ingest, whose segment size sets num_ctx): the one resolution in src/verbs/canary-settings.ts,
// with refusals naming the flags and warnings on stderr. Imported only by a command that runs.
import { FLAG_LABELS, resolveCanarySettings } from "../src/verbs/canary-settings.js";
import type { CanaryFlags } from "./flags.js";
import type { CliIo } from "./io.js";

/** Pipeline options from the canary flags; validates the endpoint, the provider and the timeout. */
export function pipelineOptionsFromFlags(flags: CanaryFlags, io: CliIo): ReturnType<typeof resolveCanarySettings> {
  return resolveCanarySettings(flags, { cwd: io.cwd, env: io.env, labels: FLAG_LABELS, warn: (message) => void io.stderr.write(`warning: ${message}\n`) });
}
