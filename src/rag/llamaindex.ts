// `little-canary/llamaindex`: a LlamaIndex.TS reader over a published ingest pair and a query-time
// node postprocessor (the rules are screen-documents.ts's) (docs/rag.md). `llamaindex` is an optional
// peer dependency: only a program that imports this subpath needs it.
// Why a reader and not a screening step inside an IngestionPipeline: its docstore records a
// document before the transformations run and its cache replays a transformation's earlier
// output, so a screen there can be skipped while a held document is already stored. Screening
// belongs before LlamaIndex sees the documents: `little-canary ingest`, then this reader.
import { Document, TextNode, type BaseNodePostprocessor, type BaseReader, type MessageContent, type NodeWithScore } from "llamaindex";
import { HOLD_REASONS_KEY, SCREEN_STATE_KEY } from "./screen-documents.js";
import { resolveQueryScreen, screenAtQueryTime, type QueryScreenOptions, type QueryScreenPlan } from "./screen-documents.js";
import { admittedLoader, type AdmittedDocument, type VerifiedExportOptions } from "./verified-export.js";

export { ExportVerificationError, PROVENANCE_PREFIX, type Provenance, type VerifiedExportOptions } from "./verified-export.js";
export { HOLD_REASONS_KEY, SCREEN_STATE_KEY, type HeldHandling, type QueryScreenOptions, type QueryScreenState } from "./screen-documents.js";
export type { HeldDocument, ScreenDocumentsOptions } from "./screen-documents.js";

/**
 * Reads the admitted records of a published ingest pair as LlamaIndex Documents: `text` is the
 * record's text, `id_` its id (or `little-canary:<index>` (`little-canary:K/N:<index>` in shard K of N)), `metadata` its string metadata plus
 * the flat provenance keys (`little_canary_index`, `little_canary_sha256`, …; see verified-export.ts),
 * which are listed in `excludedLlmMetadataKeys` and `excludedEmbedMetadataKeys`: never shown to
 * the model nor embedded.
 */
export class LittleCanaryExportReader implements BaseReader<Document> {
  private readonly admitted: () => Promise<AdmittedDocument[]>;

  /** The manifest and export paths and the manifest's pinned SHA-256 (or `allowUnpinned: true`). */
  constructor(options: VerifiedExportOptions) {
    this.admitted = admittedLoader(options, "LittleCanaryExportReader");
  }

  /** Verifies the pair, then returns every admitted record once, in order; throws on any problem. */
  async loadData(): Promise<Document[]> {
    return (await this.admitted()).map(
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

/** Options of LittleCanaryNodePostprocessor: how to screen, `held`, `onDegraded` and `onHeld` (see QueryScreenOptions). */
export type LittleCanaryNodePostprocessorOptions = QueryScreenOptions<NodeWithScore>;

const MARK_KEYS = [SCREEN_STATE_KEY, HOLD_REASONS_KEY];

/** The string entries of a node's excluded-keys list, copied. */
const keyList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((key): key is string => typeof key === "string") : []);

/** The one read of a node everything passed on comes from. */
function readNode({ node, score }: NodeWithScore) {
  const id = node.id_;
  return {
    text: (node as { readonly text?: unknown }).text,
    id: typeof id === "string" ? id : null,
    metadata: node.metadata ?? {},
    score,
    excludedLlm: keyList(node.excludedLlmMetadataKeys),
    excludedEmbed: keyList(node.excludedEmbedMetadataKeys),
    relationships: node.relationships,
  };
}

/**
 * LlamaIndex's node postprocessor (a query or chat engine's `nodePostprocessors`): screens the
 * retrieved nodes and returns, in order and with their scores, new TextNodes with exactly what was
 * screened, marked `little_canary_screen` and `little_canary_hold_reasons` (kept from the model and
 * the embedder). A node without a string `text` (an image) is held as malformed. Held nodes are
 * dropped (default) or flagged; a node the canary did not see all of is held unless
 * `onDegraded: "fail_open"`. The query is not used.
 */
export class LittleCanaryNodePostprocessor implements BaseNodePostprocessor {
  private readonly plan: QueryScreenPlan<NodeWithScore>;

  /** The pipeline (and policy) to screen with, `held`, `onDegraded` and `onHeld`; throws UsageError for options that do not fit. */
  constructor(options: LittleCanaryNodePostprocessorOptions) {
    this.plan = resolveQueryScreen(options, "LittleCanaryNodePostprocessor");
  }

  /** Screens `nodes`; returns those passed on and reports the held ones to `onHeld`. */
  async postprocessNodes(nodes: NodeWithScore[], _query?: MessageContent): Promise<NodeWithScore[]> {
    const passed = await screenAtQueryTime(nodes, readNode, this.plan);
    return passed.map(({ reading, fields }) => ({
      node: new TextNode({
        text: fields.text,
        ...(fields.id === null ? {} : { id_: fields.id }),
        metadata: fields.metadata,
        excludedLlmMetadataKeys: [...new Set([...reading.excludedLlm, ...MARK_KEYS])],
        excludedEmbedMetadataKeys: [...new Set([...reading.excludedEmbed, ...MARK_KEYS])],
        // Links to other nodes, which LlamaIndex never shows the model, go on as they were.
        relationships: reading.relationships,
      }),
      ...(reading.score === undefined ? {} : { score: reading.score }),
    }));
  }
}
