// The replay capture format `little-canary-demo-replay/v1`: its schema, its payload hash (over our
// canonical JSON, independent of any language's float formatting; see scripts/foreign-capture.ts)
// and its loading. Failures are values with fixed messages that echo nothing from the file.
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { isPlainObject } from "../core/guards.js";
import { readStrictDocument } from "../core/strict-document.js";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { CAPTURE_KIND, CAPTURE_SCHEMA, CONTRAST_CASES, DEMO_GENERATION, MAX_CAPTURE_BYTES } from "./contrast.js";

const nonBlank = (error: string) => z.string({ error }).refine((s) => s.trim() !== "", { error });

// Why a file is not a capture: fixed reasons that name fields and the values this build requires,
// never a value of the file. The command puts the flag and the file before them (replay.ts:
// `--capture F is not a demo capture: REASON`).
const REASON = {
  incomplete: "its capture metadata is incomplete (a required field is missing or blank)",
  metadata: "its capture metadata is not an object",
  backend: "its backend is not ollama",
  promptHash: "its system_prompt_sha256 is not 64 lowercase hex digits",
  temperature: `its temperature is not ${DEMO_GENERATION.temperature}`,
  seed: `its seed is not ${DEMO_GENERATION.seed}`,
  maxTokens: `its max_tokens is not ${DEMO_GENERATION.maxTokens}`,
  note: "its provenance_note is not a string",
  schema: `its schema is not ${CAPTURE_SCHEMA}`,
  kind: `its fixture_kind is not ${CAPTURE_KIND}`,
  caseCount: `it does not hold exactly the ${CONTRAST_CASES.length} cases of the contrast pair`,
  casePair: "its cases are not this build's contrast pair (clean, then c1-05, with their inputs)",
  caseShape: "a case is not an object",
  response: "a case's response is missing or blank",
  expected: "a case's expected is not an object",
  risk: "a case's expected risk is not a number",
  block: "a case's expected block is not true or false",
  signals: "a case's expected signals are not a list of non-empty strings",
} as const;
/** The reasons above: the only schema messages shown, since zod's own could quote the file. */
const SCHEMA_REASONS: ReadonlySet<string> = new Set(Object.values(REASON));

const CaptureCaseSchema = z.object(
  {
    id: z.string({ error: REASON.casePair }),
    input: z.string({ error: REASON.casePair }),
    response: nonBlank(REASON.response),
    expected: z.object(
      {
        risk: z.number({ error: REASON.risk }).refine(Number.isFinite, { error: REASON.risk }),
        block: z.boolean({ error: REASON.block }),
        signals: z.array(z.string({ error: REASON.signals }).min(1, { error: REASON.signals }), { error: REASON.signals }).max(1000, { error: REASON.signals }),
      },
      { error: REASON.expected },
    ),
  },
  { error: REASON.caseShape },
);

const CaptureMetadataSchema = z.object(
  {
    timestamp_utc: nonBlank(REASON.incomplete),
    source_sha: nonBlank(REASON.incomplete),
    backend: nonBlank(REASON.incomplete).refine((b) => b === "ollama", { error: REASON.backend }),
    model: nonBlank(REASON.incomplete),
    model_digest: nonBlank(REASON.incomplete),
    runtime_version: nonBlank(REASON.incomplete),
    system_prompt_sha256: nonBlank(REASON.incomplete).refine((s) => /^[0-9a-f]{64}$/.test(s), { error: REASON.promptHash }),
    temperature: z.literal(DEMO_GENERATION.temperature, { error: REASON.temperature }),
    seed: z.literal(DEMO_GENERATION.seed, { error: REASON.seed }),
    max_tokens: z.literal(DEMO_GENERATION.maxTokens, { error: REASON.maxTokens }),
    provenance_note: z.string({ error: REASON.note }).optional(),
  },
  { error: REASON.metadata },
);

export const CapturePayloadSchema = z.object({
  schema: z.literal(CAPTURE_SCHEMA, { error: REASON.schema }),
  fixture_kind: z.literal(CAPTURE_KIND, { error: REASON.kind }),
  capture: CaptureMetadataSchema,
  cases: z
    .array(CaptureCaseSchema, { error: REASON.caseCount })
    .length(CONTRAST_CASES.length, { error: REASON.caseCount })
    .refine((cases) => cases.every((c, i) => c.id === CONTRAST_CASES[i]?.id && c.input === CONTRAST_CASES[i]?.input), { error: REASON.casePair }),
});

export type CapturePayload = z.infer<typeof CapturePayloadSchema>;
/** A replay capture (`little-canary-demo-replay/v1`) with its payload hash (64 lowercase hex digits). */
export type Capture = CapturePayload & { payload_sha256: string };

/** SHA-256 of the canonical JSON of a capture without its `payload_sha256`. */
export function capturePayloadSha256(document: Readonly<Record<string, unknown>>): string {
  const { payload_sha256: _ignored, ...payload } = document;
  return sha256Hex(canonicalJsonUnchecked(payload));
}

/** A complete capture document: the payload plus its hash. */
export function sealCapture(payload: CapturePayload): Capture {
  CapturePayloadSchema.parse(payload);
  return { ...payload, payload_sha256: capturePayloadSha256(payload as unknown as Record<string, unknown>) };
}

export type CaptureLoad = { readonly kind: "ok"; readonly capture: Capture } | { readonly kind: "integrity"; readonly detail: string };

const integrity = (detail: string): CaptureLoad => ({ kind: "integrity", detail });

/**
 * Strict UTF-8 JSON (no BOM, no duplicate keys at any depth, no non-finite numbers), so a
 * capture cannot mean one thing to this parser and another to the hash; undefined when invalid.
 */
export function parseCaptureJson(bytes: Uint8Array): unknown {
  const parsed = readStrictDocument(bytes);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * Validates capture bytes in a fixed order (size, UTF-8 JSON, hash, then shape); the first failure
 * decides. An integrity failure's `detail` is why the bytes are not a capture, to be put after the
 * file's name (`--capture F is not a demo capture: DETAIL`).
 */
export function parseCapture(bytes: Uint8Array): CaptureLoad {
  if (bytes.byteLength > MAX_CAPTURE_BYTES) return integrity(`it is larger than ${MAX_CAPTURE_BYTES} bytes (one megabyte)`);
  const document = parseCaptureJson(bytes);
  if (document === undefined) return integrity("it is not strict UTF-8 JSON (a capture has no byte order mark, duplicate key or non-finite number)");
  if (!isPlainObject(document)) return integrity("it is not a JSON object");
  const declared = document["payload_sha256"];
  if (typeof declared !== "string" || !/^[0-9a-fA-F]{64}$/.test(declared)) return integrity("its payload_sha256 is missing or not 64 hex digits");
  let computed: string;
  try {
    computed = capturePayloadSha256(document);
  } catch {
    return integrity("its payload cannot be canonicalized");
  }
  if (!timingSafeEqual(Buffer.from(declared.toLowerCase(), "latin1"), Buffer.from(computed, "latin1"))) {
    return integrity("its payload_sha256 does not match its content (it was changed after it was hashed, or hashed by another implementation)");
  }
  const parsed = CapturePayloadSchema.safeParse(document);
  if (!parsed.success) {
    // Only our own fixed reasons are shown; zod's defaults could quote a value from the file.
    const message = parsed.error.issues[0]?.message ?? "";
    return integrity(SCHEMA_REASONS.has(message) ? message : "its fields are not those of a capture");
  }
  return { kind: "ok", capture: { ...parsed.data, payload_sha256: declared.toLowerCase() } };
}
