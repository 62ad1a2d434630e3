// What the flags of `little-canary ingest` configure: the options of the `ingest` verb (targets,
// policy overrides, canary settings, tuning knobs and reports), one plain object. The verb checks
// and resolves them, the canary flags after the targets and the policy, so errors come in the
// same order as from the library. Imported only when ingest runs.
import type { IngestOptions, PolicyLabels } from "../src/verbs/ingest.js";
import { resolveReportSettings } from "../src/verbs/report-settings.js";
import type { IngestFlags } from "./ingest-flags.js";
import type { CliIo } from "./io.js";
import { verbIo } from "./verb-io.js";

/** The flag that sets each policy limit, for refusals of its value. */
const POLICY_FLAGS = Object.freeze({
  segment_chars: "--segment-chars",
  segment_overlap: "--segment-overlap",
  max_segments: "--max-segments",
  max_item_bytes: "--max-item-bytes",
  max_items: "--max-items",
  max_total_bytes: "--max-total-bytes",
  max_metadata_keys: "--max-metadata-keys",
  max_metadata_value_chars: "--max-metadata-value-chars",
} satisfies PolicyLabels);

/** The options of one `ingest` run from its flags (`-` reads `stdin`). */
export function ingestOptionsFromFlags(input: string, flags: IngestFlags, io: CliIo): IngestOptions {
  // Refusals name the flags and warnings go to stderr, as for every other command's verb.
  const { cwd, env, labels, reporter } = verbIo(io);
  return {
    input: input === "-" ? io.stdin : input,
    manifest: flags.manifest,
    export: flags.export ?? null,
    overwrite: flags.overwrite === true,
    // An unset flag keeps strict/v1's value.
    policy: {
      segment_chars: flags.segmentChars,
      segment_overlap: flags.segmentOverlap,
      max_segments: flags.maxSegments,
      max_item_bytes: flags.maxItemBytes,
      max_items: flags.maxItems,
      max_total_bytes: flags.maxTotalBytes,
      max_metadata_keys: flags.maxMetadataKeys,
      max_metadata_value_chars: flags.maxMetadataValueChars,
    },
    policyLabels: POLICY_FLAGS,
    // The reporter too: `--endpoint-log -` writes through its stderr stream.
    canary: { settings: flags, context: { cwd, env, labels, warn: reporter.warn, reporter } },
    concurrency: flags.concurrency,
    waitLockSeconds: flags.waitLock ?? 0,
    ...(flags.maxCanaryFailures !== undefined ? { maxCanaryFailures: flags.maxCanaryFailures } : {}),
    uniqueIds: flags.uniqueIds === true,
    cache: typeof flags.cache === "string" ? flags.cache : null,
    shard: flags.shard ?? null,
    allow: flags.allow ?? null,
    ...(flags.manifestVersion === undefined ? {} : { manifestVersion: Number(flags.manifestVersion) as 1 | 2 | 3 }),
    reports: resolveReportSettings(flags, { env, reporter }),
    cwd: io.cwd,
  };
}
