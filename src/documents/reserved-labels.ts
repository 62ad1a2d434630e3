// The record labels the RAG adapters (src/rag/) keep for themselves: metadata keys of the
// provenance they add to every loaded document, and the namespace of the ids they generate for
// records without one. A record that uses either is sound, but the adapters refuse to load it, so
// ingest warns about an admitted one (cli/ingest-output.ts) before a consumer meets the refusal.

/** A reserved metadata key: the LangChain loader once nested its provenance under it, so a record's own metadata may not use it. */
export const PROVENANCE_KEY = "little_canary";

/** The prefix of the flat provenance keys (`little_canary_index`, `little_canary_sha256`, …). */
export const PROVENANCE_PREFIX = "little_canary_";

/** Every id the adapters generate for a record without one starts so; a record's own id may not. */
export const GENERATED_ID_PREFIX = "little-canary:";

/** A metadata key the adapters' provenance would overwrite or be taken for. */
export function isReservedMetadataKey(key: string): boolean {
  return key === PROVENANCE_KEY || key.startsWith(PROVENANCE_PREFIX);
}

/**
 * An id in the namespace of generated ids: it could be a record's without one and replace it in a
 * store keyed by id. Compared case-folded and NFKC-normalized, so that a store folding either sees
 * no collision either.
 */
export function isReservedId(id: string | null): boolean {
  return id?.normalize("NFKC").toLowerCase().startsWith(GENERATED_ID_PREFIX) === true;
}
