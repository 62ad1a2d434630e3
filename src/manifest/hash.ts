// Hashes used by ingest evidence: SHA-256 in lowercase hex over UTF-8.
// A string with a lone surrogate is refused rather than hashed, because TextEncoder would
// silently turn it into U+FFFD and two different strings would share a digest.
import { createHash } from "node:crypto";
import { z } from "zod";
import { UsageError } from "../errors.js";
import { canonicalJson } from "./canonical.js";
import { MetadataMapSchema } from "./metadata-map.js";

/** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === "string" && !data.isWellFormed()) {
    throw new UsageError("cannot hash a string with a lone surrogate");
  }
  return createHash("sha256").update(data).digest("hex");
}

/** The record fields `material_sha256` covers. */
export const MaterialSchema = z.strictObject({
  id: z.string().nullable(),
  source: z.string().nullable(),
  metadata: MetadataMapSchema,
  text: z.string(),
});
export type Material = z.infer<typeof MaterialSchema>;

/**
 * `material_sha256`: SHA-256 of the canonical JSON of `{id, source, metadata, text}`. Key
 * order of `metadata` does not matter because canonical JSON sorts keys.
 */
export function materialSha256(record: {
  readonly id: string | null;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly text: string;
}): string {
  const material = { id: record.id, source: record.source, metadata: record.metadata, text: record.text };
  return sha256Hex(canonicalJson(MaterialSchema, material));
}
