// `material_sha256`: the digest of the record fields a manifest vouches for. It lives with the
// documents because its input shape is a document schema; the hash itself is core/hash.ts.
import { z } from "zod";
import { canonicalJson } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { MetadataMapSchema } from "./metadata-map.js";

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
