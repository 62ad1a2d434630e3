// Screen what a search returns before it reaches the model (docs/rag.md, "Query-time screening"):
// a retriever over the results of a web search (here read from a JSONL file, one
// {"id"?, "url"?, "text"} per line), then LittleCanaryCompressor, as ContextualCompressionRetriever
// calls it. Held pages are dropped (or kept and marked with --flag); a page the canary did not see
// all of is held unless --fail-open, and then it is passed marked `fail_open`.
// It prints, as JSON, each page passed on (its id, url and marks) and each page held (its position
// and reasons), never page text.
//
//   npm run build
//   node dist/examples/langchain/screen-search-results.js --results results.jsonl [--question TEXT]
//     [--ollama-url http://127.0.0.1:11434] [--flag] [--fail-open]      (--help: the usage)
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { BaseRetriever } from "@langchain/core/retrievers";
import { canaryNumCtxForPolicy, SecurityPipeline, STRICT_V1 } from "little-canary";
import { HOLD_REASONS_KEY, LittleCanaryCompressor, SCREEN_STATE_KEY, type HeldDocument } from "little-canary/langchain";
import { exampleArgs } from "../command-line.js";

/** One search result as the example reads it. */
export interface SearchResult {
  readonly id?: string;
  readonly url?: string;
  readonly text: string;
}

/** What the example prints: the pages passed on with their marks, and the held ones. */
export interface ScreenedResults {
  readonly passed: ReadonlyArray<{ readonly id: string | null; readonly url: unknown; readonly screen: unknown; readonly reasons: unknown }>;
  readonly held: ReadonlyArray<{ readonly index: number; readonly reasons: readonly string[] }>;
}

/** A retriever that answers every query with the same results: stands in for a web search tool. */
class SearchResultsRetriever extends BaseRetriever {
  override lc_namespace = ["examples", "little_canary"];
  constructor(private readonly results: readonly SearchResult[]) {
    super();
  }
  override async _getRelevantDocuments(_query: string): Promise<DocumentInterface[]> {
    return this.results.map(
      (r) => new Document({ pageContent: r.text, metadata: r.url === undefined ? {} : { url: r.url }, ...(r.id === undefined ? {} : { id: r.id }) }),
    );
  }
}

/** Retrieves `results` for `question` and screens them; resolves to what the example prints. */
export async function screenSearchResults(options: {
  readonly results: readonly SearchResult[];
  readonly question: string;
  readonly ollamaUrl: string;
  readonly flag?: boolean;
  readonly failOpen?: boolean;
}): Promise<ScreenedResults> {
  // Query-time screening is an ingest run: the canary's context window must hold a strict/v1 segment.
  const pipeline = new SecurityPipeline({ ollamaUrl: options.ollamaUrl, canaryNumCtx: canaryNumCtxForPolicy(STRICT_V1) });
  const held: HeldDocument<DocumentInterface>[] = [];
  const compressor = new LittleCanaryCompressor({
    pipeline,
    held: options.flag === true ? "flag" : "drop",
    onDegraded: options.failOpen === true ? "fail_open" : "fail_closed",
    onHeld: (list) => void held.push(...list),
  });
  const search = new SearchResultsRetriever(options.results);
  // What ContextualCompressionRetriever does with its baseRetriever and baseCompressor.
  const passed = await compressor.compressDocuments(await search.invoke(options.question), options.question);
  return {
    passed: passed.map((d) => ({ id: d.id ?? null, url: d.metadata.url, screen: d.metadata[SCREEN_STATE_KEY], reasons: d.metadata[HOLD_REASONS_KEY] })),
    held: held.map((h) => ({ index: h.index, reasons: h.reasons })),
  };
}

const USAGE = `usage: screen-search-results --results results.jsonl [--question TEXT] [--ollama-url URL] [--flag] [--fail-open]
  --results FILE     the search results, one {"id"?, "url"?, "text"} per line
  --question TEXT    what the retriever is asked (default: "What do these pages say?")
  --ollama-url URL   the canary's Ollama (default http://127.0.0.1:11434)
  --flag             keep held pages, marked, instead of dropping them
  --fail-open        pass a page the canary did not see all of, marked fail_open, instead of holding it
`;

async function main(): Promise<number> {
  const values = exampleArgs(
    {
      results: { type: "string" },
      question: { type: "string" },
      "ollama-url": { type: "string" },
      flag: { type: "boolean" },
      "fail-open": { type: "boolean" },
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  if (!values.results) {
    process.stderr.write(USAGE);
    return 2;
  }
  try {
    const lines = (await readFile(values.results, "utf8")).split("\n").filter((line) => line.trim() !== "");
    const results = lines.map((line, index) => {
      try {
        return JSON.parse(line) as SearchResult;
      } catch {
        // Named by position: the parser's own message may quote the line.
        throw new Error(`results line ${index + 1} is not JSON`);
      }
    });
    const screened = await screenSearchResults({
      results,
      question: values.question ?? "What do these pages say?",
      ollamaUrl: values["ollama-url"] ?? "http://127.0.0.1:11434",
      flag: values.flag === true,
      failOpen: values["fail-open"] === true,
    });
    process.stdout.write(`${JSON.stringify(screened)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
