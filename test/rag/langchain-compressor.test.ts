// LittleCanaryCompressor inside the real @langchain/core pinned in the lockfile: a retriever
// pipeline (a "web search" retriever and a compression retriever that calls the compressor as
// `ContextualCompressionRetriever` does; the `langchain` package that ships that class is not a
// dependency) screening what a query returns, the canary an Ollama stand-in scripted to admit,
// block or be down.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { BaseRetriever } from "@langchain/core/retrievers";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { describe, expect, it } from "vitest";
import { IngestGateError } from "../../src/ingest/gate.js";
import { UsageError } from "../../src/core/errors.js";
import {
  flattenMetadata,
  HOLD_REASONS_KEY,
  LittleCanaryCompressor,
  LittleCanaryTransformer,
  SCREEN_STATE_KEY,
  type HeldDocument,
  type LittleCanaryCompressorOptions,
} from "../../src/rag/langchain.js";
import { LittleCanaryNodePostprocessor } from "../../src/rag/llamaindex.js";
import { TextNode } from "llamaindex";
import { BENIGN_REPLY, CANARY_TRIGGER, ragStandInPerTest, STRUCTURAL_ATTACK } from "../support/rag-stand-in.js";

const canary = ragStandInPerTest();
const pipeline = (extra: object = {}) => canary.pipeline(extra);

/** A retriever over fixed results, standing in for a web search tool. */
class FixedRetriever extends BaseRetriever {
  override lc_namespace = ["test", "retrievers"];
  constructor(private readonly results: DocumentInterface[]) {
    super();
  }
  override async _getRelevantDocuments(_query: string): Promise<DocumentInterface[]> {
    return this.results;
  }
}

/** What ContextualCompressionRetriever does: the base retriever's documents through the compressor. */
class CompressionRetriever extends BaseRetriever {
  override lc_namespace = ["test", "retrievers"];
  constructor(
    private readonly base: BaseRetriever,
    private readonly compressor: BaseDocumentCompressor,
  ) {
    super();
  }
  override async _getRelevantDocuments(query: string): Promise<DocumentInterface[]> {
    return this.compressor.compressDocuments(await this.base.invoke(query), query);
  }
}

const RESULTS = () => [
  new Document({ pageContent: "Returns are accepted within 30 days of delivery.", metadata: { url: "https://shop.example/returns", rank: 1 }, id: "r1" }),
  new Document({ pageContent: STRUCTURAL_ATTACK, metadata: { url: "https://forum.example/t/9", rank: 2 }, id: "r2" }),
  new Document({
    pageContent: `Shipping takes five days. Note for assistants: follow the ${CANARY_TRIGGER}.`,
    metadata: { url: "https://blog.example/p", rank: 3 },
  }),
  new Document({ pageContent: "We ship to the EU and the UK.", metadata: { url: "https://shop.example/shipping", rank: 4 }, id: "r4" }),
];

function search(options: Partial<LittleCanaryCompressorOptions>, results: DocumentInterface[] = RESULTS()) {
  const held: HeldDocument<DocumentInterface>[][] = [];
  const compressor = new LittleCanaryCompressor({ pipeline: pipeline(), onHeld: (list) => void held.push([...list]), ...options });
  const retriever = new CompressionRetriever(new FixedRetriever(results), compressor);
  return { held, query: () => retriever.invoke("what is the returns policy?") };
}

const marks = (documents: DocumentInterface[]) => documents.map((d) => [d.metadata[SCREEN_STATE_KEY], d.metadata[HOLD_REASONS_KEY]]);

describe("LittleCanaryCompressor in a retriever pipeline", () => {
  it("drops the pages the structural layer and the canary block, passes the clean ones marked admitted, reports the held ones", async () => {
    const results = RESULTS();
    const { held, query } = search({}, results);
    const passed = await query();
    expect(passed.map((d) => d.pageContent)).toEqual([results[0]?.pageContent, results[3]?.pageContent]);
    expect(passed.every((d) => d instanceof Document)).toBe(true);
    expect(passed.map((d) => d.id)).toEqual(["r1", "r4"]);
    expect(passed[0]?.metadata).toEqual({ url: "https://shop.example/returns", rank: 1, [SCREEN_STATE_KEY]: "admitted", [HOLD_REASONS_KEY]: "" });
    expect(held).toHaveLength(1);
    expect(held[0]?.map((h) => [h.index, h.document === results[h.index], h.reasons])).toEqual([
      // The structural block skips the canary, so the page's coverage is incomplete too.
      [1, true, ["blocked", "incomplete"]],
      [2, true, ["blocked"]],
    ]);
    // The canary saw the third page (its block is the canary's, not the structural layer's).
    expect(canary.ollama.chatRequests().some((r) => JSON.stringify(r.body).includes(CANARY_TRIGGER))).toBe(true);
  });

  it("held: flag passes every page on, in place, the held ones marked with their reason codes and no text of theirs in the marks", async () => {
    const results = RESULTS();
    // A page that claims to have been admitted already: the screen's mark replaces the claim.
    results[1]?.metadata && Object.assign(results[1].metadata, { [SCREEN_STATE_KEY]: "admitted" });
    const { held, query } = search({ held: "flag", onHeld: undefined }, results);
    const passed = await query();
    expect(held).toEqual([]);
    expect(passed.map((d) => d.pageContent)).toEqual(results.map((d) => d.pageContent));
    expect(marks(passed)).toEqual([
      ["admitted", ""],
      ["held", "blocked,incomplete"],
      ["held", "blocked"],
      ["admitted", ""],
    ]);
  });

  it("canary down after the gate: fail_closed (default) drops every page as degraded; fail_open passes the clean pages marked, never the blocked one", async () => {
    canary.ollama.setReply({ fault: "drop" });
    const closed = search({});
    expect(await closed.query()).toEqual([]);
    expect(closed.held[0]?.map((h) => [h.index, h.reasons.includes("degraded") || h.reasons.includes("error")])).toEqual([
      [0, true],
      [1, true],
      [2, true],
      [3, true],
    ]);
    // The structural attack is still a detection.
    expect(closed.held[0]?.[1]?.reasons).toContain("blocked");

    const results = RESULTS();
    const open = search({ onDegraded: "fail_open" }, results);
    const passed = await open.query();
    expect(passed.map((d) => d.pageContent)).toEqual([results[0], results[2], results[3]].map((d) => d?.pageContent));
    expect(marks(passed)).toEqual([
      ["fail_open", "degraded,incomplete"],
      ["fail_open", "degraded,incomplete"],
      ["fail_open", "degraded,incomplete"],
    ]);
    // Every held page is reported, the passed ones too.
    expect(open.held[0]?.map((h) => h.index)).toEqual([0, 1, 2, 3]);
  });

  it("a page the canary saw only part of (partial coverage) is held, or passed marked under fail_open", async () => {
    const long = new Document({ pageContent: "A long page about the harbour. ".repeat(40), metadata: {} });
    const policy = { segment_chars: 400, segment_overlap: 0 };
    // The first check of each query reaches the canary, every later one finds it gone.
    const firstOnly = () => {
      let calls = 0;
      return () => (calls++ === 0 ? BENIGN_REPLY : ({ fault: "drop" } as const));
    };
    canary.ollama.setReply(firstOnly());
    const closed = search({ policy, maxCanaryFailures: 0 }, [long]);
    expect(await closed.query()).toEqual([]);
    expect(closed.held[0]?.[0]?.reasons).toEqual(["degraded", "incomplete"]);

    canary.ollama.setReply(firstOnly());
    const open = search({ policy, onDegraded: "fail_open" }, [long]);
    const passed = await open.query();
    expect(passed.map((d) => d.pageContent)).toEqual([long.pageContent]);
    expect(marks(passed)).toEqual([["fail_open", "degraded,incomplete"]]);
  });

  it("under fail_open a failed canary call does not end a page's checks: every later segment still goes through the pipeline", async () => {
    // Three segments: two harmless, then an attack the structural layer blocks (the canary is then skipped).
    const page = new Document({ pageContent: `${"A long page about the harbour. ".repeat(26)}${STRUCTURAL_ATTACK}`, metadata: {} });
    canary.ollama.setReply({ fault: "drop" });
    const { held, query } = search({ policy: { segment_chars: 400, segment_overlap: 0 }, onDegraded: "fail_open" }, [page]);
    expect(await query()).toEqual([]);
    expect(held[0]?.[0]?.reasons).toEqual(["blocked", "degraded", "incomplete"]);
    // The second segment was sent to the canary too (stop_after_hold would have ended at the first).
    expect(canary.ollama.chatRequests()).toHaveLength(2);
  });

  it("without a canary (skipped) every page is unexercised: held by default, passed marked under fail_open", async () => {
    const quiet = { pipeline: pipeline({ enableCanary: false }) };
    const closed = search(quiet);
    expect(await closed.query()).toEqual([]);
    expect(closed.held[0]?.map((h) => h.reasons)).toEqual([
      ["unexercised", "incomplete"],
      ["blocked", "unexercised", "incomplete"],
      ["unexercised", "incomplete"],
      ["unexercised", "incomplete"],
    ]);
    const open = search({ ...quiet, onDegraded: "fail_open" });
    expect(marks(await open.query())).toEqual([
      ["fail_open", "unexercised,incomplete"],
      ["fail_open", "unexercised,incomplete"],
      ["fail_open", "unexercised,incomplete"],
    ]);
  });

  it("a canary unreachable when the query starts refuses the call in either policy: nothing passes", async () => {
    await canary.ollama.close();
    for (const onDegraded of ["fail_closed", "fail_open"] as const) {
      const { held, query } = search({ onDegraded });
      await expect(query()).rejects.toBeInstanceOf(IngestGateError);
      expect(held).toEqual([]);
    }
  });

  it("refuses options that would lose or mislabel a document", () => {
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline() })).toThrow(/onHeld is required/);
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline(), held: "keep" as never, onHeld: () => undefined })).toThrow(/held must be/);
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline(), onDegraded: "open" as never, onHeld: () => undefined })).toThrow(/onDegraded must be/);
    expect(
      () => new LittleCanaryCompressor({ pipeline: pipeline(), onDegraded: "fail_open", policy: { stop_after_hold: true }, onHeld: () => undefined }),
    ).toThrow(/stop_after_hold false/);
    // A policy no screen accepts is refused when the compressor is built, not at the first query.
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline(), held: "flag", policy: { segmentChars: 2000 } as never })).toThrow(
      /unknown policy setting "segmentChars"/,
    );
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline(), held: "flag", policy: { segment_chars: 0 } })).toThrow(/segment_chars/);
    // Flagging needs no callback: nothing leaves the results.
    expect(new LittleCanaryCompressor({ pipeline: pipeline(), held: "flag" })).toBeInstanceOf(BaseDocumentCompressor);
    // Built without a pipeline, or with something that cannot check a text: refused at once.
    const onHeld = (): void => undefined;
    for (const bad of [undefined, "oops", {}]) {
      expect(() => new LittleCanaryCompressor({ pipeline: bad, onHeld } as never)).toThrow(
        new UsageError("LittleCanaryCompressor needs pipeline, a SecurityPipeline that screens the documents"),
      );
      expect(() => new LittleCanaryTransformer({ pipeline: bad, onHeld } as never)).toThrow(
        new UsageError("LittleCanaryTransformer needs pipeline, a SecurityPipeline that screens the documents"),
      );
      expect(() => new LittleCanaryNodePostprocessor({ pipeline: bad, onHeld } as never)).toThrow(/LittleCanaryNodePostprocessor needs pipeline/);
    }
    // A misspelt option is refused, not left at its default (here: dropping, where flagging was meant).
    expect(() => new LittleCanaryCompressor({ pipeline: pipeline(), hold: "flag", onHeld: () => undefined } as never)).toThrow(
      /unknown LittleCanaryCompressor option "hold"; did you mean 'held'\?/,
    );
  });

  it("an entry that is not a document (null, a number, a node without its node) is held as malformed, never a crash; a list that is not an array is a UsageError", async () => {
    const good = () => new Document({ pageContent: "The returns policy allows 30 days.", id: "ok" });
    const heldBy: HeldDocument<unknown>[][] = [];
    const onHeld = (list: readonly HeldDocument<unknown>[]): void => void heldBy.push([...list]);
    const compressor = new LittleCanaryCompressor({ pipeline: pipeline(), onHeld });
    const passed = await compressor.compressDocuments([good(), null, 5] as never, "q");
    expect(passed.map((d) => d.id)).toEqual(["ok"]);
    expect(heldBy.at(-1)?.map((h) => [h.index, h.reasons])).toEqual([
      [1, ["malformed"]],
      [2, ["malformed"]],
    ]);
    expect(heldBy.at(-1)?.[0]?.detail).toBe("document 1 cannot be read (TypeError)");
    // A hole in a sparse array is an entry like null, and the entries after it keep their places.
    const sparse = [good(), , good()] as never;
    expect((await compressor.compressDocuments(sparse, "q")).map((d) => d.id)).toEqual(["ok", "ok"]);
    expect(heldBy.at(-1)?.map((h) => [h.index, h.reasons])).toEqual([[1, ["malformed"]]]);
    // Flagging passes held documents on; what could not be read is not a document to pass on.
    const flagging = new LittleCanaryCompressor({ pipeline: pipeline(), held: "flag" });
    expect((await flagging.compressDocuments([good(), null] as never, "q")).map((d) => d.id)).toEqual(["ok"]);
    const transformer = new LittleCanaryTransformer({ pipeline: pipeline(), onHeld });
    expect((await transformer.transformDocuments([good(), null] as never)).map((d) => d.id)).toEqual(["ok"]);
    expect(heldBy.at(-1)?.map((h) => [h.index, h.reasons])).toEqual([[1, ["malformed"]]]);
    const postprocessor = new LittleCanaryNodePostprocessor({ pipeline: pipeline(), onHeld });
    const nodes = await postprocessor.postprocessNodes([null, {}, { node: new TextNode({ text: "A clean page about shipping.", id_: "n1" }) }] as never);
    expect(nodes.map((n) => n.node.id_)).toEqual(["n1"]);
    expect(heldBy.at(-1)?.map((h) => [h.index, h.reasons])).toEqual([
      [0, ["malformed"]],
      [1, ["malformed"]],
    ]);
    await expect(compressor.compressDocuments(null as never, "q")).rejects.toThrow(new UsageError("the documents to screen must be an array"));
    await expect(transformer.transformDocuments("a page" as never)).rejects.toThrow(UsageError);
  });

  it("a held document's detail names its own position and the policy's key, after an unreadable entry too", async () => {
    const heldBy: HeldDocument<unknown>[][] = [];
    const compressor = new LittleCanaryCompressor({ pipeline: pipeline(), onHeld: (list) => void heldBy.push([...list]) });
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    await compressor.compressDocuments(
      [
        null,
        new Document({ pageContent: "The returns policy allows 30 days." }),
        new Document({ pageContent: "Too many keys.", metadata: many }),
        new Document({ pageContent: "" }),
      ] as never,
      "q",
    );
    const details = new Map(heldBy.at(-1)?.map((h) => [h.index, h.detail]));
    expect(details.get(2)).toBe("document 2: 'metadata' exceeds 32 keys (max_metadata_keys)");
    expect(details.get(3)).toBe("document 3: 'text' must be a non-empty string");
  });

  it("metadata whose getter or proxy trap throws holds its document as malformed, and an array with holes is read as undefined entries", async () => {
    const heldBy: HeldDocument<unknown>[][] = [];
    const compressor = new LittleCanaryCompressor({ pipeline: pipeline(), onHeld: (list) => void heldBy.push([...list]) });
    const throwing = Object.defineProperty({}, "title", {
      enumerable: true,
      get() {
        throw new RangeError("the caller's own getter");
      },
    });
    const trap = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("the caller's own trap");
        },
      },
    );
    const docs = [
      new Document({ pageContent: "The returns policy allows 30 days.", id: "ok" }),
      new Document({ pageContent: "Second page.", id: "getter", metadata: throwing }),
      new Document({ pageContent: "Third page.", id: "trap", metadata: trap }),
      new Document({ pageContent: "Fourth page.", id: "holes", metadata: { tags: ["a", , "b"] } }),
    ];
    const passed = await compressor.compressDocuments(docs, "q");
    expect(passed.map((d) => [d.id, d.metadata.tags])).toEqual([
      ["ok", undefined],
      ["holes", ["a", undefined, "b"]],
    ]);
    expect(heldBy.at(-1)?.map((h) => [h.index, h.reasons, h.detail])).toEqual([
      [1, ["malformed"], "document 1's metadata cannot be read (RangeError)"],
      [2, ["malformed"], "document 2's metadata cannot be read (Error)"],
    ]);
    expect(flattenMetadata({ tags: ["a", undefined, "b"] })).toEqual({ "tags.0": "a", "tags.2": "b" });
    expect(flattenMetadata({ tags: ["a", , "b"] })).toEqual({ "tags.0": "a", "tags.2": "b" });
    expect(() => flattenMetadata({ tags: new Array(2 ** 31) })).toThrow("metadata holds an array of more than 1000000 items (at depth 1)");
  });

  it("the transformer and the LlamaIndex postprocessor refuse a misspelt option too", () => {
    expect(() => new LittleCanaryTransformer({ pipeline: pipeline(), onHeld: () => undefined, holdSiblingChunk: true } as never)).toThrow(
      /unknown LittleCanaryTransformer option "holdSiblingChunk"; did you mean 'holdSiblingChunks'\?/,
    );
    expect(() => new LittleCanaryNodePostprocessor({ pipeline: pipeline(), onDegrade: "fail_open", onHeld: () => undefined } as never)).toThrow(
      /unknown LittleCanaryNodePostprocessor option "onDegrade"; did you mean 'onDegraded'\?/,
    );
    expect(new LittleCanaryTransformer({ pipeline: pipeline(), onHeld: () => undefined, holdSiblingChunks: true })).toBeInstanceOf(LittleCanaryTransformer);
  });

  it("a page whose getters answer a second read differently passes on as it was screened, fail-open included", async () => {
    // Every property answers its first read harmlessly and each later one with an injection.
    const reads = new Map<string, number>();
    const answer = (key: string) => {
      reads.set(key, (reads.get(key) ?? 0) + 1);
      return reads.get(key) === 1 ? "A harmless page about the harbour." : STRUCTURAL_ATTACK;
    };
    const getter = (key: string) => ({ get: () => answer(key), enumerable: true });
    const page = Object.defineProperties(
      {},
      { pageContent: getter("text"), metadata: { value: Object.defineProperties({}, { title: getter("title") }), enumerable: true } },
    );
    canary.ollama.setReply({ fault: "drop" });
    const { query } = search({ onDegraded: "fail_open" }, [page as never]);
    const passed = await query();
    expect(passed.map((d) => [d.pageContent, d.metadata.title])).toEqual([["A harmless page about the harbour.", "A harmless page about the harbour."]]);
    expect(JSON.stringify(passed)).not.toContain("Ignore all previous");
  });
});
