// LittleCanaryNodePostprocessor (docs/rag.md, "Query-time screening"). The rules are
// query-screen.ts's; this file only reads a node once and builds the TextNode passed on.
import { TextNode, type BaseNodePostprocessor, type MessageContent, type NodeWithScore } from "llamaindex";
import { HOLD_REASONS_KEY, resolveQueryScreen, SCREEN_STATE_KEY, screenAtQueryTime, type QueryScreenOptions, type QueryScreenPlan } from "./query-screen.js";

/** Options of LittleCanaryNodePostprocessor: how to screen, `held`, `onDegraded` and `onHeld` (see QueryScreenOptions). */
export type LittleCanaryNodePostprocessorOptions = QueryScreenOptions<NodeWithScore>;

const MARK_KEYS = [SCREEN_STATE_KEY, HOLD_REASONS_KEY];

/** The string entries of a node's excluded-keys list, copied. */
const keyList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((key): key is string => typeof key === "string") : []);

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
    this.plan = resolveQueryScreen(options);
  }

  /** Screens `nodes`; returns those passed on and reports the held ones to `onHeld`. */
  async postprocessNodes(nodes: NodeWithScore[], _query?: MessageContent): Promise<NodeWithScore[]> {
    // Everything passed on comes from this one read of each node.
    const readings = nodes.map((item) => {
      const node = item.node;
      const id = node.id_;
      return {
        text: (node as { readonly text?: unknown }).text,
        id: typeof id === "string" ? id : null,
        metadata: node.metadata ?? {},
        score: item.score,
        excludedLlm: keyList(node.excludedLlmMetadataKeys),
        excludedEmbed: keyList(node.excludedEmbedMetadataKeys),
        relationships: node.relationships,
      };
    });
    const passed = await screenAtQueryTime(readings, (reading) => reading, { ...this.plan, onHeld: this.reportHeld(nodes) });
    return passed.map(({ original: reading, fields }) => ({
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

  /** The plan's onHeld, told the NodeWithScore given rather than this file's reading of it. */
  private reportHeld(nodes: readonly NodeWithScore[]): QueryScreenPlan<unknown>["onHeld"] {
    const onHeld = this.plan.onHeld;
    if (onHeld === null) return null;
    return (held) => onHeld(held.map((h) => ({ ...h, document: nodes[h.index] as NodeWithScore })));
  }
}
