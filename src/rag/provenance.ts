// The provenance a RAG adapter attaches to each document it loads from a verified export: where the
// record sits in the pair and the digests that bind it, under reserved metadata keys that never
// mix with the record's own. One shape for every framework: flat top-level keys
// (`little_canary_<field>`), never one nested object, because LlamaIndex renders each metadata value
// as text and LangChain's `index()` leaves nested keys out of the hash it dedupes by.
import { UsageError } from "../core/errors.js";
import type { ExportRecord } from "../documents/schemas.js";

/**
 * A reserved metadata key: the LangChain loader nested its provenance under it before the flat
 * keys (see the module comment), so a record's own metadata may not use it, lest it be taken for
 * provenance.
 */
export const PROVENANCE_KEY = "little_canary";

/** Where a loaded document came from. */
export interface Provenance {
  /** The record's index in the manifest. */
  readonly index: number;
  readonly id: string | null;
  readonly source: string | null;
  /** SHA-256 of the text. */
  readonly sha256: string;
  /** SHA-256 of the record's text, id, source and metadata together. */
  readonly material_sha256: string;
  /** SHA-256 of the manifest the record was verified against. */
  readonly manifest_sha256: string;
}

/** The provenance of one admitted record of a verified export. */
function provenanceOf(record: ExportRecord, manifestSha256: string): Provenance {
  return {
    index: record.index,
    id: record.id,
    source: record.source,
    sha256: record.sha256,
    material_sha256: record.material_sha256,
    manifest_sha256: manifestSha256,
  };
}

/** The prefix of the flat provenance keys (`flatProvenance`). */
export const PROVENANCE_PREFIX = "little_canary_";

/**
 * The provenance as flat metadata entries (`little_canary_index`, `little_canary_sha256`, …),
 * the one shape both adapters attach (see the module comment). A null id or source is left out.
 */
export function flatProvenance(record: ExportRecord, manifestSha256: string): Record<string, string | number> {
  const provenance = provenanceOf(record, manifestSha256);
  const flat: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(provenance)) if (value !== null) flat[`${PROVENANCE_PREFIX}${key}`] = value;
  return flat;
}

/**
 * Refuses a record whose own metadata uses a reserved key (`little_canary`, or one starting
 * `little_canary_`): its value would be overwritten by the provenance or taken for it.
 */
export function refuseReservedKeys(record: Pick<ExportRecord, "index" | "metadata">): void {
  if (Object.keys(record.metadata).some((key) => key === PROVENANCE_KEY || key.startsWith(PROVENANCE_PREFIX))) {
    throw new UsageError(
      `record ${record.index} has a metadata key "${PROVENANCE_KEY}" or one starting "${PROVENANCE_PREFIX}", which the adapters reserve for provenance`,
    );
  }
}
