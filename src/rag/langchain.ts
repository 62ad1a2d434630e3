// `little-canary/langchain`: LangChain.js adapters (docs/rag.md): a document loader over a
// verified ingest pair, and a transformer that screens Documents as an ingest run does and
// reports every held one to `onHeld`, never dropping one in silence. `@langchain/core` is an
// optional peer dependency: only a program that imports this subpath needs it.
import { BaseDocumentLoader } from "@langchain/core/document_loaders/base";
import { BaseDocumentTransformer, Document, type DocumentInterface } from "@langchain/core/documents";
import { UsageError } from "../core/errors.js";
import { screenDocumentRecords, type HeldDocument, type ScreenDocumentsOptions } from "./screen-documents.js";
import { loadVerifiedExport, requirePin, type VerifiedExportOptions } from "./verified-export.js";
import { provenanceOf, PROVENANCE_KEY, refuseReservedKeys } from "./provenance.js";

export { ExportVerificationError, type VerifiedExportOptions } from "./verified-export.js";
export type { HeldDocument, ScreenDocumentsOptions } from "./screen-documents.js";
export { flattenMetadata, MAX_METADATA_DEPTH } from "./flatten-metadata.js";
export { PROVENANCE_KEY, type Provenance } from "./provenance.js";
export { LittleCanaryCompressor, type LittleCanaryCompressorOptions } from "./langchain-compressor.js";
export { HOLD_REASONS_KEY, SCREEN_STATE_KEY, type HeldHandling, type QueryScreenOptions, type QueryScreenState } from "./query-screen.js";

/**
 * Loads the admitted records of a published ingest pair as LangChain Documents: `pageContent`
 * is the record's text, `metadata` its string metadata plus `little_canary` provenance (index,
 * id, source, sha256, material_sha256, manifest_sha256), and `id` the record's id, or
 * `little-canary:<index>` for a record without one.
 */
export class LittleCanaryExportLoader extends BaseDocumentLoader {
  private readonly options: VerifiedExportOptions;

  /** The manifest and export paths and the manifest's pinned SHA-256 (or `allowUnpinned: true`). */
  constructor(options: VerifiedExportOptions) {
    super();
    requirePin(options);
    this.options = { ...options };
  }

  /** Verifies the pair, then returns every admitted record once, in order; throws on any problem. */
  async load(): Promise<Document[]> {
    const verified = await loadVerifiedExport(this.options);
    return verified.records.map((record) => {
      refuseReservedKeys(record);
      return new Document({
        pageContent: record.text,
        metadata: { ...record.metadata, [PROVENANCE_KEY]: provenanceOf(record, verified.manifestSha256) },
        id: record.id ?? `little-canary:${record.index}`,
      });
    });
  }

  /**
   * `load()`, then the splitter's `splitDocuments` when one is given. LangChain's `index()`
   * recognizes a loader by this method (not by its class), so a loader without it would be
   * refused there.
   */
  async loadAndSplit(splitter?: { splitDocuments(documents: Document[]): Promise<Document[]> }): Promise<Document[]> {
    const documents = await this.load();
    return splitter === undefined ? documents : splitter.splitDocuments(documents);
  }
}

/** Options of LittleCanaryTransformer: how to screen, and where held documents are reported. */
export interface LittleCanaryTransformerOptions extends ScreenDocumentsOptions {
  /**
   * Receives the documents held by each call (an empty list when none), with their reasons.
   * Required: a transformer returns only what it admits, so this is where the rest goes.
   */
  readonly onHeld: (held: readonly HeldDocument<DocumentInterface>[]) => void | Promise<void>;
}

/**
 * Screens LangChain Documents as an ingest run screens records (the text and the flattened
 * metadata, segment by segment) and returns the admitted ones in order, each a new Document
 * with the text, id and metadata that were screened (read once from the one given).
 */
export class LittleCanaryTransformer extends BaseDocumentTransformer {
  /** LangChain's serialization namespace of this class. */
  override lc_namespace = ["little_canary", "langchain"];
  private readonly options: LittleCanaryTransformerOptions;

  /** The pipeline (and policy) to screen with, and the `onHeld` callback. */
  constructor(options: LittleCanaryTransformerOptions) {
    super();
    if (typeof options.onHeld !== "function") throw new UsageError("onHeld is required: held documents must be reported, not dropped");
    this.options = options;
  }

  /** Screens `documents`; returns the admitted ones and reports the held ones to `onHeld`. */
  async transformDocuments(documents: DocumentInterface[]): Promise<DocumentInterface[]> {
    const outcome = await screenDocumentRecords(
      documents,
      (document) => ({ text: document.pageContent, id: document.id ?? null, metadata: document.metadata ?? {} }),
      this.options,
      // The Document passed on holds exactly what was screened (see screenDocumentRecords).
      (screened) => new Document({ pageContent: screened.text, metadata: screened.metadata, ...(screened.id === null ? {} : { id: screened.id }) }),
    );
    await this.options.onHeld(outcome.held);
    return [...outcome.admitted];
  }
}
