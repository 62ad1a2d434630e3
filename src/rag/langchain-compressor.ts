// LittleCanaryCompressor (docs/rag.md, "Query-time screening"). The rules are query-screen.ts's;
// this file only reads a LangChain Document once and builds the Document passed on.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { resolveQueryScreen, screenAtQueryTime, type QueryScreenOptions, type QueryScreenPlan } from "./query-screen.js";
import type { DocumentFields, ScreenedFields } from "./screen-documents.js";

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
    this.plan = resolveQueryScreen(options);
  }

  /** Screens `documents`; returns those passed on and reports the held ones to `onHeld`. */
  async compressDocuments(documents: DocumentInterface[], _query: string): Promise<DocumentInterface[]> {
    const passed = await screenAtQueryTime(documents, readDocument, this.plan);
    return passed.map(({ fields }) => screenedDocument(fields));
  }
}

/** What is screened of a LangChain Document: its text, id and metadata, read once. */
export function readDocument(document: DocumentInterface): DocumentFields {
  return { text: document.pageContent, id: document.id ?? null, metadata: document.metadata ?? {} };
}

/** A new Document holding exactly what was screened. */
export const screenedDocument = (fields: ScreenedFields): Document =>
  new Document({ pageContent: fields.text, metadata: fields.metadata, ...(fields.id === null ? {} : { id: fields.id }) });
