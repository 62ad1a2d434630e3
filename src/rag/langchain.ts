// `little-canary/langchain`: LangChain.js adapters (docs/rag.md): a document loader over a
// verified ingest pair, a transformer that screens Documents as an ingest run does and reports
// every held one to `onHeld`, never dropping one in silence, and a query-time compressor (the rules
// are screen-documents.ts's). `@langchain/core` is an optional peer dependency: only a program that
// imports this subpath needs it.
import { BaseDocumentLoader } from "@langchain/core/document_loaders/base";
import { BaseDocumentTransformer, Document, type DocumentInterface } from "@langchain/core/documents";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { UsageError } from "../core/errors.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { resolvePolicy } from "../documents/policy.js";
import {
  SCREEN_DOCUMENTS_OPTION_KEYS,
  requirePipeline,
  resolveQueryScreen,
  screenAtQueryTime,
  screenDocumentRecords,
  type QueryScreenOptions,
  type QueryScreenPlan,
} from "./screen-documents.js";
import type { DocumentFields, HeldDocument, ScreenDocumentsOptions, ScreenedFields, SourceFields } from "./screen-documents.js";
import { admittedLoader, type AdmittedDocument, type VerifiedExportOptions } from "./verified-export.js";

export { ExportVerificationError, PROVENANCE_KEY, PROVENANCE_PREFIX, type Provenance, type VerifiedExportOptions } from "./verified-export.js";
export { flattenMetadata, HOLD_REASONS_KEY, MAX_METADATA_DEPTH, SCREEN_STATE_KEY, type HeldHandling, type QueryScreenState } from "./screen-documents.js";
export type { DocumentHoldReason, HeldDocument, QueryScreenOptions, ScreenDocumentsOptions, SourceFields } from "./screen-documents.js";

/**
 * Loads the admitted records of a published ingest pair as LangChain Documents: `pageContent` is
 * the record's text, `metadata` its string metadata plus the flat provenance keys
 * (`little_canary_index`, …; flat because LangChain's `index()` leaves nested keys out of the hash
 * it dedupes by, see verified-export.ts), and `id` the record's id, or `little-canary:<index>` (`little-canary:K/N:<index>` in shard K of N).
 */
export class LittleCanaryExportLoader extends BaseDocumentLoader {
  private readonly admitted: () => Promise<AdmittedDocument[]>;

  /** The manifest and export paths and the manifest's pinned SHA-256 (or `allowUnpinned: true`). */
  constructor(options: VerifiedExportOptions) {
    super();
    this.admitted = admittedLoader(options, "LittleCanaryExportLoader");
  }

  /** Verifies the pair, then returns every admitted record once, in order; throws on any problem. */
  async load(): Promise<Document[]> {
    return (await this.admitted()).map((record) => new Document({ pageContent: record.text, metadata: record.metadata, id: record.id }));
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

/** Every option of LittleCanaryTransformerOptions; `satisfies` keeps the list equal to the interface. */
const TRANSFORMER_OPTION_KEYS: readonly string[] = [
  ...SCREEN_DOCUMENTS_OPTION_KEYS,
  ...Object.keys({ onHeld: true, holdSiblingChunks: true } satisfies Record<Exclude<keyof LittleCanaryTransformerOptions, keyof ScreenDocumentsOptions>, true>),
];

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
    // A misspelt option (`holdSiblingChunk`) would otherwise leave its default in force, unseen.
    refuseUnknownOptions("LittleCanaryTransformer", options, TRANSFORMER_OPTION_KEYS);
    if (typeof options.onHeld !== "function") throw new UsageError("onHeld is required: held documents must be reported, not dropped");
    // Overrides no screen accepts are refused now, not at the first call.
    resolvePolicy(options.policy);
    const hold = options.holdSiblingChunks ?? false;
    if (typeof hold !== "boolean" && typeof hold !== "function") throw new UsageError("holdSiblingChunks must be true, false or a function");
    requirePipeline("LittleCanaryTransformer", options.pipeline);
    this.options = options;
    this.sourceOf = hold === true ? metadataSource : hold === false ? undefined : hold;
  }

  /** Screens `documents`; returns the admitted ones and reports the held ones to `onHeld`. */
  async transformDocuments(documents: DocumentInterface[]): Promise<DocumentInterface[]> {
    const outcome = await screenDocumentRecords(documents, readDocument, this.options, this.sourceOf);
    await this.options.onHeld(outcome.held);
    return outcome.admitted.map(screenedDocument);
  }
}

/** Options of LittleCanaryCompressor: how to screen, `held`, `onDegraded` and `onHeld` (see QueryScreenOptions). */
export type LittleCanaryCompressorOptions = QueryScreenOptions<DocumentInterface>;

/**
 * LangChain's document compressor (the step of a `ContextualCompressionRetriever`): screens the
 * Documents a retriever returns and passes on, in order, new Documents with exactly what was
 * screened, marked `little_canary_screen` and `little_canary_hold_reasons`. Held documents are
 * dropped (default) or flagged; a document the canary did not see all of is held unless
 * `onDegraded: "fail_open"`. The query is not used: the documents are what is untrusted.
 */
export class LittleCanaryCompressor extends BaseDocumentCompressor {
  private readonly plan: QueryScreenPlan<DocumentInterface>;

  /** The pipeline (and policy) to screen with, `held`, `onDegraded` and `onHeld`; throws UsageError for options that do not fit. */
  constructor(options: LittleCanaryCompressorOptions) {
    super();
    this.plan = resolveQueryScreen(options, "LittleCanaryCompressor");
  }

  /** Screens `documents`; returns those passed on and reports the held ones to `onHeld`. */
  async compressDocuments(documents: DocumentInterface[], _query: string): Promise<DocumentInterface[]> {
    const passed = await screenAtQueryTime(documents, readDocument, this.plan);
    return passed.map(({ fields }) => screenedDocument(fields));
  }
}

/** What is screened of a LangChain Document: its text, id and metadata, read once. */
function readDocument(document: DocumentInterface): DocumentFields {
  return { text: document.pageContent, id: document.id ?? null, metadata: document.metadata ?? {} };
}

/** A new Document holding exactly what was screened. */
const screenedDocument = (fields: ScreenedFields): Document =>
  new Document({ pageContent: fields.text, metadata: fields.metadata, ...(fields.id === null ? {} : { id: fields.id }) });
