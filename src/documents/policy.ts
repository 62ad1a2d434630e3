// The ingest policy `strict/v1`: the limits one ingest run works under, in the document form the
// manifest records and `policies/strict-v1.json` holds (`STRICT_V1` must equal that file; a test
// pins it). Overrides are validated in a fixed order, so the CLI and the library refuse the same
// inputs with the same words.
import { z } from "zod";
import { UsageError } from "../core/errors.js";
// The reader enforces these caps while reading; the policy shares them rather than restating them.
import { DEFAULT_READER_LIMITS, MAX_ITEM_BYTES_CEILING, MAX_LABEL_CHARS, type ReaderLimits } from "./reader-limits.js";

export { MAX_ITEM_BYTES_CEILING, MAX_LABEL_CHARS };

const POLICY_NAME = "strict/v1";

/** Truncation limits for per-record evidence. */
export const MAX_SIGNAL_CHARS = 128;
export const MAX_SIGNALS_PER_RECORD = 32;
export const MAX_DETAIL_CHARS = 200;

/** The integer limits, in the order `resolvePolicy` validates them. */
const POLICY_LIMIT_NAMES = [
  "segment_chars",
  "segment_overlap",
  "max_segments",
  "max_item_bytes",
  "max_items",
  "max_total_bytes",
  "max_metadata_keys",
  "max_metadata_value_chars",
] as const;
export type PolicyLimitName = (typeof POLICY_LIMIT_NAMES)[number];

// JS numbers lose integer precision above 2^53; a limit there could not be compared exactly,
// so limits without a ceiling of their own are capped at the largest safe integer instead.
const ceilingOf = (name: PolicyLimitName): number => (name === "segment_chars" || name === "max_item_bytes" ? MAX_ITEM_BYTES_CEILING : Number.MAX_SAFE_INTEGER);

const limit = (name: PolicyLimitName) => z.int().min(0).max(ceilingOf(name));

/** zod schema of an ingest policy document. */
export const IngestPolicySchema = z
  .strictObject({
    name: z.literal(POLICY_NAME),
    segment_chars: limit("segment_chars").min(1),
    segment_overlap: limit("segment_overlap"),
    max_segments: limit("max_segments"),
    max_item_bytes: limit("max_item_bytes"),
    max_items: limit("max_items"),
    max_total_bytes: limit("max_total_bytes"),
    max_metadata_keys: limit("max_metadata_keys"),
    max_metadata_value_chars: limit("max_metadata_value_chars"),
    stop_after_hold: z.boolean(),
  })
  .refine((p) => p.segment_overlap < p.segment_chars, {
    message: "segment_overlap must be smaller than segment_chars",
    path: ["segment_overlap"],
  });

/** An ingest policy document (snake_case, as the manifest records it). */
export type IngestPolicy = z.infer<typeof IngestPolicySchema>;

/** The policy `strict/v1`, equal to policies/strict-v1.json. */
export const STRICT_V1: Readonly<IngestPolicy> = Object.freeze({
  name: POLICY_NAME,
  segment_chars: 3500,
  segment_overlap: 500,
  max_segments: 8,
  max_item_bytes: 65536,
  max_items: 1000,
  max_total_bytes: 8_388_608,
  max_metadata_keys: 32,
  max_metadata_value_chars: 1024,
  stop_after_hold: true,
});

/** Overrides a caller (the CLI flags) may apply; values are checked, not trusted. */
export type PolicyOverrides = Partial<Record<PolicyLimitName | "stop_after_hold", unknown>>;

const OVERRIDABLE = new Set<string>([...POLICY_LIMIT_NAMES, "stop_after_hold"]);

/**
 * How a caller names each policy limit (the CLI: the flag that sets it): a refusal keeps its
 * documented words, which name the keys, and ends with the names of the limits it is about.
 */
export type PolicyLabels = Readonly<Partial<Record<PolicyLimitName, string>>>;

/** `check_limit`: the first problem with one limit value, or null. */
function checkLimit(name: string, value: unknown, max?: number): string | null {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return `${name} must be a non-negative integer`;
  if (max !== undefined && value > max) return `${name} must not exceed ${max}`;
  return null;
}

/**
 * The first problem of a would-be policy, in the documented order of the limits, or null when valid.
 * Works on unknown values so the same checks guard CLI flags and policy documents.
 */
function policyProblem(candidate: Record<string, unknown>, labels: PolicyLabels): string | null {
  const chars = candidate["segment_chars"];
  const overlap = candidate["segment_overlap"];
  // `problem` about these limits, ending with the caller's names for them when it has any.
  const about = (problem: string | null, ...names: PolicyLimitName[]): string | null => {
    const named = names.flatMap((name) => labels[name] ?? []);
    return problem === null || named.length === 0 ? problem : `${problem} (${named.join(", ")})`;
  };
  // The comparisons are guarded: a value that is not a number has its own problem first.
  const problems = [
    about(checkLimit("segment_chars", chars, ceilingOf("segment_chars")), "segment_chars"),
    about(typeof chars === "number" && chars < 1 ? "segment_chars must be at least 1" : null, "segment_chars"),
    about(checkLimit("segment_overlap", overlap, ceilingOf("segment_overlap")), "segment_overlap"),
    about(
      typeof chars === "number" && typeof overlap === "number" && overlap >= chars ? "segment_overlap must be smaller than segment_chars" : null,
      "segment_overlap",
      "segment_chars",
    ),
    ...POLICY_LIMIT_NAMES.slice(2).map((name) => about(checkLimit(name, candidate[name], ceilingOf(name)), name)),
    typeof candidate["stop_after_hold"] === "boolean" ? null : "stop_after_hold must be a boolean",
  ];
  return problems.find((problem) => problem !== null) ?? null;
}

/**
 * `STRICT_V1` with `overrides` applied. Throws UsageError on an unknown override name or on
 * the first invalid value (in the documented order). Zero is legal for every limit except
 * `segment_chars`. An override whose value is `undefined` is treated as absent. `labels`: the
 * caller's names of the limits, which a refusal ends with (the CLI's flags).
 */
export function resolvePolicy(overrides: PolicyOverrides = {}, labels: PolicyLabels = {}): IngestPolicy {
  const candidate: Record<string, unknown> = { ...STRICT_V1 };
  for (const key of Object.keys(overrides)) {
    if (!OVERRIDABLE.has(key)) throw new UsageError(unknownSettingMessage(key));
    const value = (overrides as Record<string, unknown>)[key];
    if (value !== undefined) candidate[key] = value;
  }
  const problem = policyProblem(candidate, labels);
  if (problem !== null) throw new UsageError(problem);
  // The ordered checks above cover every rule of the schema; parsing still guards the shape.
  return IngestPolicySchema.parse(candidate);
}

/**
 * The refusal of an override that is not a setting: it names the key when it is a plain name (a
 * caller's own code wrote it), points a camelCase spelling at the setting it means, and lists the settings.
 */
function unknownSettingMessage(key: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key) ? key : null;
  const snake = name?.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  const hint = snake !== undefined && snake !== name && OVERRIDABLE.has(snake) ? ` (did you mean "${snake}"?)` : "";
  return `unknown policy setting ${name === null ? "(a key that is not a plain name)" : `"${name}"`}${hint}; the settings are ${[...OVERRIDABLE].join(", ")}`;
}

/** Reader limits implied by a policy (so the reader and the policy can never disagree). */
export function readerLimitsForPolicy(policy: IngestPolicy): ReaderLimits {
  return {
    ...DEFAULT_READER_LIMITS,
    maxItems: policy.max_items,
    maxItemBytes: policy.max_item_bytes,
    maxTotalBytes: policy.max_total_bytes,
    maxMetadataKeys: policy.max_metadata_keys,
    maxMetadataValueChars: policy.max_metadata_value_chars,
  };
}
