// The provenance a RAG adapter attaches to each document it loads from a verified export: where the
// record sits in the pair and the digests that bind it, under reserved metadata keys that never
// mix with the record's own. One shape for every framework: flat top-level keys
// (`little_canary_<field>`), never one nested object, because LlamaIndex renders each metadata value
// as text and LangChain's `index()` leaves nested keys out of the hash it dedupes by.
import { UsageError } from "../core/errors.js";
import type { ExportRecord } from "../documents/schemas.js";
import { loadVerifiedExport, type VerifiedExportOptions } from "./verified-export.js";

/** A reserved metadata key: the LangChain loader once nested its provenance under it, so a record's own metadata may not use it. */
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

/** The prefix of the flat provenance keys (`flatProvenance`). */
export const PROVENANCE_PREFIX = "little_canary_";

/**
 * The provenance as flat metadata entries (`little_canary_index`, `little_canary_sha256`, …),
 * the one shape both adapters attach (see the module comment). A null id or source is left out.
 */
function flatProvenance(record: ExportRecord, manifestSha256: string): Record<string, string | number> {
  const { index, id, source, sha256, material_sha256 } = record;
  const provenance: Provenance = { index, id, source, sha256, material_sha256, manifest_sha256: manifestSha256 };
  const flat: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(provenance)) if (value !== null) flat[`${PROVENANCE_PREFIX}${key}`] = value;
  return flat;
}

/** Refuses a record whose own metadata uses a reserved key: it would be overwritten by the provenance or taken for it. */
function refuseReservedKeys(record: Pick<ExportRecord, "index" | "metadata">): void {
  if (Object.keys(record.metadata).some((key) => key === PROVENANCE_KEY || key.startsWith(PROVENANCE_PREFIX))) {
    throw new UsageError(
      `record ${record.index} has a metadata key "${PROVENANCE_KEY}" or one starting "${PROVENANCE_PREFIX}", which the adapters reserve for provenance`,
    );
  }
}

/** One admitted record as both adapters build their documents from it. */
export interface AdmittedDocument {
  readonly text: string;
  /** The record's id, or `little-canary:<index>` for a record without one. */
  readonly id: string;
  /** The record's string metadata plus the flat provenance entries. */
  readonly metadata: Record<string, string | number>;
  /** The provenance keys in `metadata` (LlamaIndex hides them from the model and the embedder). */
  readonly provenanceKeys: readonly string[];
}

/** Verifies the pair, then returns every admitted record once, in order, with its provenance; all of them or (throwing) none. */
export async function loadAdmittedDocuments(options: VerifiedExportOptions): Promise<AdmittedDocument[]> {
  const verified = await loadVerifiedExport(options);
  return verified.records.map((record) => {
    refuseReservedKeys(record);
    const provenance = flatProvenance(record, verified.manifestSha256);
    return {
      text: record.text,
      id: record.id ?? `little-canary:${record.index}`,
      metadata: { ...record.metadata, ...provenance },
      provenanceKeys: Object.keys(provenance),
    };
  });
}
