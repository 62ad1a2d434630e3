// Read a verified little-canary export into LlamaIndex Documents (docs/rag.md). The reader
// verifies the pair against the pinned manifest digest and returns one Document per admitted
// record, with its provenance in metadata keys that LlamaIndex neither shows the model nor
// embeds. Hand the documents to your index (VectorStoreIndex.fromDocuments) from here; screening
// belongs before LlamaIndex, not inside an IngestionPipeline (docs/rag.md says why).
// It prints each document's id and metadata keys as JSON, never record text.
//
//   npm run build
//   node dist/examples/llamaindex/read-export.js --manifest m.json --export e.json --expect-manifest-sha256 <hex>
import { fileURLToPath } from "node:url";
import { LittleCanaryExportReader } from "little-canary/llamaindex";
import { exampleArgs } from "../command-line.js";

/** One loaded document as the example reports it: its id and metadata keys. */
export interface ReadDocument {
  readonly id: string;
  readonly metadataKeys: readonly string[];
  readonly hiddenFromModel: readonly string[];
}

/** Reads the verified export; resolves to what the example prints. */
export async function readExport(options: { manifest: string; export: string; expectManifestSha256: string }): Promise<ReadDocument[]> {
  const documents = await new LittleCanaryExportReader(options).loadData();
  return documents.map((document) => ({
    id: document.id_,
    metadataKeys: Object.keys(document.metadata).sort(),
    hiddenFromModel: [...document.excludedLlmMetadataKeys].sort(),
  }));
}

async function main(): Promise<number> {
  const usage = "usage: read-export --manifest M --export E --expect-manifest-sha256 HEX\n";
  const values = exampleArgs({ manifest: { type: "string" }, export: { type: "string" }, "expect-manifest-sha256": { type: "string" } }, usage);
  if (typeof values === "number") return values;
  if (!values.manifest || !values.export || !values["expect-manifest-sha256"]) {
    process.stderr.write(usage);
    return 2;
  }
  try {
    const documents = await readExport({ manifest: values.manifest, export: values.export, expectManifestSha256: values["expect-manifest-sha256"] });
    process.stdout.write(`${JSON.stringify(documents)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
