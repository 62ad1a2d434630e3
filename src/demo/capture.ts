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
const INCOMPLETE = "fixture capture metadata is incomplete";
const CASE_PAIR = "fixture contrast pair does not match this build";
const SIGNALS = "case signal expectation is invalid";

const CaptureCaseSchema = z.object(
  {
    id: z.string({ error: CASE_PAIR }),
    input: z.string({ error: CASE_PAIR }),
    response: nonBlank("fixture response must be a non-empty string"),
    expected: z.object(
      {
        risk: z.number({ error: "case risk expectation is invalid" }).refine(Number.isFinite, { error: "case risk expectation is invalid" }),
        block: z.boolean({ error: "case block expectation is invalid" }),
        signals: z.array(z.string({ error: SIGNALS }).min(1, { error: SIGNALS }), { error: SIGNALS }).max(1000, { error: SIGNALS }),
      },
      { error: "case expectation is invalid" },
    ),
  },
  { error: "fixture case is invalid" },
);

const CaptureMetadataSchema = z.object(
  {
    timestamp_utc: nonBlank(INCOMPLETE),
    source_sha: nonBlank(INCOMPLETE),
    backend: nonBlank(INCOMPLETE).refine((b) => b === "ollama", { error: "fixture backend is unsupported" }),
    model: nonBlank(INCOMPLETE),
    model_digest: nonBlank(INCOMPLETE),
    runtime_version: nonBlank(INCOMPLETE),
    system_prompt_sha256: nonBlank(INCOMPLETE).refine((s) => /^[0-9a-f]{64}$/.test(s), {
      error: "fixture system prompt hash is invalid",
    }),
    temperature: z.literal(DEMO_GENERATION.temperature, { error: "fixture temperature is unsupported" }),
    seed: z.literal(DEMO_GENERATION.seed, { error: "fixture generation parameters are unsupported" }),
    max_tokens: z.literal(DEMO_GENERATION.maxTokens, { error: "fixture generation parameters are unsupported" }),
    provenance_note: z.string().optional(),
  },
  { error: "fixture capture metadata is invalid" },
);

export const CapturePayloadSchema = z.object({
  schema: z.literal(CAPTURE_SCHEMA, { error: "fixture schema is unsupported" }),
  fixture_kind: z.literal(CAPTURE_KIND, { error: "fixture provenance kind is invalid" }),
  capture: CaptureMetadataSchema,
  cases: z
    .array(CaptureCaseSchema, { error: "fixture must contain the exact contrast pair" })
    .length(CONTRAST_CASES.length, { error: "fixture must contain the exact contrast pair" })
    .refine((cases) => cases.every((c, i) => c.id === CONTRAST_CASES[i]?.id && c.input === CONTRAST_CASES[i]?.input), { error: CASE_PAIR }),
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

/** Validates capture bytes in a fixed order (size, UTF-8 JSON, hash, then shape); the first failure decides. */
export function parseCapture(bytes: Uint8Array): CaptureLoad {
  if (bytes.byteLength > MAX_CAPTURE_BYTES) return integrity("fixture exceeds the one-megabyte limit");
  const document = parseCaptureJson(bytes);
  if (document === undefined) return integrity("fixture is not valid UTF-8 JSON");
  if (!isPlainObject(document)) return integrity("fixture root is invalid");
  const declared = document["payload_sha256"];
  if (typeof declared !== "string" || !/^[0-9a-fA-F]{64}$/.test(declared)) return integrity("fixture hash is missing or invalid");
  let computed: string;
  try {
    computed = capturePayloadSha256(document);
  } catch {
    return integrity("fixture payload cannot be canonicalized");
  }
  if (!timingSafeEqual(Buffer.from(declared.toLowerCase(), "latin1"), Buffer.from(computed, "latin1"))) return integrity("fixture hash mismatch");
  const parsed = CapturePayloadSchema.safeParse(document);
  if (!parsed.success) {
    // Only our own fixed messages are shown; zod's defaults could quote a value from the file.
    const message = parsed.error.issues[0]?.message ?? "";
    return integrity(/^(fixture|case) [a-z -]{1,80}$/.test(message) ? message : "fixture shape is invalid");
  }
  return { kind: "ok", capture: { ...parsed.data, payload_sha256: declared.toLowerCase() } };
}
