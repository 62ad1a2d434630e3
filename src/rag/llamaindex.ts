// `little-canary/llamaindex`: a LlamaIndex.TS reader over a published ingest pair (docs/rag.md).
// `llamaindex` is an optional peer dependency: only a program that imports this subpath needs it.
// Why a reader and not a screening step inside an IngestionPipeline: its docstore records a
// document before the transformations run and its cache replays a transformation's earlier
// output, so a screen there can be skipped while a held document is already stored. Screening
// belongs before LlamaIndex sees the documents: `little-canary ingest`, then this reader.
import { Document, type BaseReader } from "llamaindex";
import { requirePin, type VerifiedExportOptions } from "./verified-export.js";
import { loadAdmittedDocuments } from "./provenance.js";

export { ExportVerificationError, type VerifiedExportOptions } from "./verified-export.js";
export { PROVENANCE_PREFIX, type Provenance } from "./provenance.js";
export { LittleCanaryNodePostprocessor, type LittleCanaryNodePostprocessorOptions } from "./llamaindex-postprocessor.js";
export { HOLD_REASONS_KEY, SCREEN_STATE_KEY, type HeldHandling, type QueryScreenOptions, type QueryScreenState } from "./query-screen.js";
export type { HeldDocument, ScreenDocumentsOptions } from "./screen-documents.js";

/**
 * Reads the admitted records of a published ingest pair as LlamaIndex Documents: `text` is the
 * record's text, `id_` its id (or `little-canary:<index>`), `metadata` its string metadata plus
 * the flat provenance keys (`little_canary_index`, `little_canary_sha256`, …; see provenance.ts),
 * which are listed in `excludedLlmMetadataKeys` and `excludedEmbedMetadataKeys`: never shown to
 * the model nor embedded.
 */
export class LittleCanaryExportReader implements BaseReader<Document> {
  private readonly options: VerifiedExportOptions;

  /** The manifest and export paths and the manifest's pinned SHA-256 (or `allowUnpinned: true`). */
  constructor(options: VerifiedExportOptions) {
    requirePin(options);
    this.options = { ...options };
  }

  /** Verifies the pair, then returns every admitted record once, in order; throws on any problem. */
  async loadData(): Promise<Document[]> {
    const admitted = await loadAdmittedDocuments(this.options);
    return admitted.map(
      (record) =>
        new Document({
          text: record.text,
          id_: record.id,
          metadata: record.metadata,
          excludedLlmMetadataKeys: [...record.provenanceKeys],
          excludedEmbedMetadataKeys: [...record.provenanceKeys],
        }),
    );
  }
}
