// Importing a capture recorded by another implementation: the Python package writes the same
// document but hashes it with Python's float formatting, so our canonical hash never matches.
// Nothing is fabricated: a capture without recorded responses cannot be imported.
import { LittleCanaryError } from "../src/core/errors.js";
import { isPlainObject } from "../src/core/guards.js";
import { CapturePayloadSchema, parseCaptureJson, sealCapture, type Capture } from "../src/demo/capture.js";
import { MAX_CAPTURE_BYTES } from "../src/demo/contrast.js";

/**
 * Converts a foreign capture into our format: every recorded field kept, the payload re-hashed over
 * our canonical JSON, the provenance note saying where it came from. Throws `input_refused` otherwise.
 */
export function importForeignCapture(bytes: Uint8Array, sourceLabel: string): Capture {
  if (bytes.byteLength > MAX_CAPTURE_BYTES) throw new LittleCanaryError("input_refused", "capture exceeds the one-megabyte limit");
  const document = parseCaptureJson(bytes);
  if (!isPlainObject(document)) throw new LittleCanaryError("input_refused", "capture is not a strict UTF-8 JSON object");
  const { payload_sha256: foreignHash, ...payload } = document;
  const parsed = CapturePayloadSchema.safeParse(payload);
  if (!parsed.success) {
    throw new LittleCanaryError(
      "input_refused",
      `capture is not a ${"little-canary-demo-replay/v1"} document: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  const hashNote = typeof foreignHash === "string" && /^[0-9a-fA-F]{64}$/.test(foreignHash) ? ` whose own payload_sha256 was ${foreignHash.toLowerCase()}` : "";
  const note = parsed.data.capture.provenance_note;
  const imported = `[Imported into little-canary (TypeScript) from ${sourceLabel}${hashNote}; payload re-hashed over canonical JSON, recorded bytes unchanged.]`;
  return sealCapture({
    ...parsed.data,
    capture: { ...parsed.data.capture, provenance_note: note ? `${note} ${imported}` : imported },
  });
}
