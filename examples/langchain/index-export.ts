// Index a verified little-canary export with LangChain (docs/rag.md): the loader verifies the
// pair against the pinned manifest digest, and LangChain's `index()` with a record manager and
// `cleanup: "full"` makes the vector store hold exactly the admitted records, adding what is new
// and deleting what a re-ingest no longer admits. The embeddings here are LangChain's
// FakeEmbeddings and the stores are in memory, so it runs anywhere; swap in your own.
// It prints the indexing counts as JSON, never record text.
//
//   npm run build
//   node dist/examples/langchain/index-export.js --manifest m.json --export e.json --expect-manifest-sha256 <hex>
import { fileURLToPath } from "node:url";
import { index } from "@langchain/core/indexing";
import { FakeEmbeddings } from "@langchain/core/utils/testing";
import { LittleCanaryExportLoader } from "little-canary/langchain";
import { MapRecordManager, MapVectorStore } from "./in-memory-stores.js";
import { exampleArgs } from "../command-line.js";

/** Where the pair is, its pin, and the stores to index into (fresh in-memory ones by default). */
export interface IndexExportOptions {
  readonly manifest: string;
  readonly export: string;
  readonly expectManifestSha256: string;
  readonly recordManager?: MapRecordManager;
  readonly vectorStore?: MapVectorStore;
}

/** LangChain's indexing counts (the result of `index()`). */
export type IndexingResult = Awaited<ReturnType<typeof index>>;

/** Loads the verified export and indexes it; resolves to LangChain's counts and the store size. */
export async function indexExport(options: IndexExportOptions): Promise<IndexingResult & { readonly stored: number }> {
  const vectorStore = options.vectorStore ?? new MapVectorStore(new FakeEmbeddings());
  const recordManager = options.recordManager ?? new MapRecordManager();
  const loader = new LittleCanaryExportLoader({ manifest: options.manifest, export: options.export, expectManifestSha256: options.expectManifestSha256 });
  const result = await index({ docsSource: loader, recordManager, vectorStore, options: { cleanup: "full" } });
  return { ...result, stored: vectorStore.entries.size };
}

async function main(): Promise<number> {
  const usage = "usage: index-export --manifest M --export E --expect-manifest-sha256 HEX\n";
  const values = exampleArgs({ manifest: { type: "string" }, export: { type: "string" }, "expect-manifest-sha256": { type: "string" } }, usage);
  if (typeof values === "number") return values;
  if (!values.manifest || !values.export || !values["expect-manifest-sha256"]) {
    process.stderr.write(usage);
    return 2;
  }
  try {
    const result = await indexExport({ manifest: values.manifest, export: values.export, expectManifestSha256: values["expect-manifest-sha256"] });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
