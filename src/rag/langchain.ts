// `little-canary/langchain`: LangChain.js adapters (docs/rag.md): a document loader over a
// verified ingest pair, and a transformer that screens Documents as an ingest run does and
// reports every held one to `onHeld`, never dropping one in silence. `@langchain/core` is an
// optional peer dependency: only a program that imports this subpath needs it.
import { BaseDocumentLoader } from "@langchain/core/document_loaders/base";
import { BaseDocumentTransformer, Document, type DocumentInterface } from "@langchain/core/documents";
import { UsageError } from "../core/errors.js";
import { screenDocumentRecords, type HeldDocument, type ScreenDocumentsOptions, type SourceFields } from "./screen-documents.js";
import { requirePin, type VerifiedExportOptions } from "./verified-export.js";
import { loadAdmittedDocuments } from "./provenance.js";
import { readDocument, screenedDocument } from "./langchain-compressor.js";

export { ExportVerificationError, type VerifiedExportOptions } from "./verified-export.js";
export type { DocumentHoldReason, HeldDocument, ScreenDocumentsOptions, SourceFields } from "./screen-documents.js";
export { flattenMetadata, MAX_METADATA_DEPTH } from "./flatten-metadata.js";
export { PROVENANCE_KEY, PROVENANCE_PREFIX, type Provenance } from "./provenance.js";
export { LittleCanaryCompressor, type LittleCanaryCompressorOptions } from "./langchain-compressor.js";
export { HOLD_REASONS_KEY, SCREEN_STATE_KEY, type HeldHandling, type QueryScreenOptions, type QueryScreenState } from "./query-screen.js";

/**
 * Loads the admitted records of a published ingest pair as LangChain Documents: `pageContent` is
 * the record's text, `metadata` its string metadata plus the flat provenance keys
 * (`little_canary_index`, …; flat because LangChain's `index()` leaves nested keys out of the hash
 * it dedupes by, see provenance.ts), and `id` the record's id, or `little-canary:<index>`.
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
    const admitted = await loadAdmittedDocuments(this.options);
    return admitted.map((record) => new Document({ pageContent: record.text, metadata: record.metadata, id: record.id }));
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
  /**
   * Opt-in (default false) for chunks screened after a splitter: once any chunk of a source
   * document is held, every chunk of that source in the same call is held too, reported with the
   * reason `sibling_held`. `true` names a chunk's source by `metadata.source` (a non-empty string),
   * the one identity LangChain's loaders set and its splitters copy to every chunk (they drop
   * `id`); a function names it from the chunk's screened id and metadata instead. A chunk with no
   * source is a group of its own. Screening before splitting is better still (docs/rag.md).
   */
  readonly holdSiblingChunks?: boolean | ((chunk: SourceFields) => string | null);
}

/** The source a LangChain loader gives a document and a splitter copies to each chunk: `metadata.source`. */
function metadataSource(chunk: SourceFields): string | null {
  const source = chunk.metadata.source;
  return typeof source === "string" && source !== "" ? source : null;
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
  /** How a chunk's source is named when chunks of one source are held together; null when they are not. */
  private readonly sourceOf: ((chunk: SourceFields) => string | null) | undefined;

  /** The pipeline (and policy) to screen with, the `onHeld` callback and `holdSiblingChunks`. */
  constructor(options: LittleCanaryTransformerOptions) {
    super();
    if (typeof options.onHeld !== "function") throw new UsageError("onHeld is required: held documents must be reported, not dropped");
    const hold = options.holdSiblingChunks ?? false;
    if (typeof hold !== "boolean" && typeof hold !== "function") throw new UsageError("holdSiblingChunks must be true, false or a function");
    this.options = options;
    this.sourceOf = hold === true ? metadataSource : hold === false ? undefined : hold;
  }

  /** Screens `documents`; returns the admitted ones and reports the held ones to `onHeld`. */
  async transformDocuments(documents: DocumentInterface[]): Promise<DocumentInterface[]> {
    const outcome = await screenDocumentRecords(documents, readDocument, this.options, screenedDocument, this.sourceOf);
    await this.options.onHeld(outcome.held);
    return [...outcome.admitted];
  }
}
