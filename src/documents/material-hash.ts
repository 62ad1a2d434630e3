// `material_sha256`: the digest of the record fields a manifest vouches for. It lives with the
// documents because its input shape is a document schema; the hash itself is core/hash.ts.
import { z } from "zod";
import { canonicalJson } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { MetadataMapSchema } from "./metadata-map.js";

/** The record fields `material_sha256` covers. */
const MaterialSchema = z.strictObject({
  id: z.string().nullable(),
  source: z.string().nullable(),
  metadata: MetadataMapSchema,
  text: z.string(),
});
type Material = z.infer<typeof MaterialSchema>;

/**
 * `material_sha256`: SHA-256 of the canonical JSON of `{id, source, metadata, text}`. Key
 * order of `metadata` does not matter because canonical JSON sorts keys.
 */
export function materialSha256(record: Readonly<Material>): string {
  const material = { id: record.id, source: record.source, metadata: record.metadata, text: record.text };
  return sha256Hex(canonicalJson(MaterialSchema, material));
}

/**
 * The canonical JSON text of a material that fits MaterialSchema and whose strings are all
 * well-formed (verify checks both first): exactly what canonicalJson writes for it, composed
 * directly since its shape is fixed (keys in code-unit order, metadata's sorted the same way).
 */
export function materialJson(material: Readonly<Material>): string {
  let metadata = "";
  for (const key of Object.keys(material.metadata).sort()) {
    metadata += `${metadata === "" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(material.metadata[key])}`;
  }
  return `{"id":${JSON.stringify(material.id)},"metadata":{${metadata}},"source":${JSON.stringify(material.source)},"text":${JSON.stringify(material.text)}}`;
}

const memo = new WeakMap<object, { readonly sha256: string; readonly material: string }>();

/**
 * `sha256` of the text and `material_sha256` of a record, computed once per frozen record (the
 * manifest entry and the export record of one record both need them; a record that is not
 * frozen, metadata included, is hashed every time, since it could have changed in between).
 */
export function recordDigests(record: Readonly<Material>): { readonly sha256: string; readonly material: string } {
  const frozen = Object.isFrozen(record) && Object.isFrozen(record.metadata);
  const known = frozen ? memo.get(record) : undefined;
  if (known !== undefined) return known;
  const digests = Object.freeze({ sha256: sha256Hex(record.text), material: materialSha256(record) });
  if (frozen) memo.set(record, digests);
  return digests;
}
