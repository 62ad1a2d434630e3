// Minimal in-memory storage for LangChain's `index()`: a RecordManager and a VectorStore that
// keep their entries in Maps, built on LangChain's own extension points (the abstract classes of
// @langchain/core). @langchain/core ships no in-memory RecordManager, and its FakeVectorStore
// cannot delete by id, which `cleanup: "full"` needs. In production, use a persistent record
// manager and your vector store; the example (index-export.ts) and the tests use these.
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { RecordManager, type ListKeyOptions, type UpdateOptions } from "@langchain/core/indexing";
import { VectorStore } from "@langchain/core/vectorstores";

/** A RecordManager over a Map: key → { updatedAt, groupId }. */
export class MapRecordManager extends RecordManager {
  override lc_namespace = ["little_canary", "test"];
  readonly records = new Map<string, { updatedAt: number; groupId: string | null }>();
  private clock = 0;

  /** Nothing to create: the Map is the schema. */
  async createSchema(): Promise<void> {}
  async getTime(): Promise<number> {
    // Strictly increasing, as a database clock would be between two runs.
    this.clock += 1;
    return this.clock;
  }
  async update(keys: string[], options: UpdateOptions = {}): Promise<void> {
    const at = options.timeAtLeast ?? (await this.getTime());
    keys.forEach((key, i) => this.records.set(key, { updatedAt: at, groupId: options.groupIds?.[i] ?? null }));
  }
  async exists(keys: string[]): Promise<boolean[]> {
    return keys.map((key) => this.records.has(key));
  }
  async listKeys(options: ListKeyOptions = {}): Promise<string[]> {
    return [...this.records.entries()]
      .filter(([, record]) => options.before === undefined || record.updatedAt < options.before)
      .filter(([, record]) => options.after === undefined || record.updatedAt > options.after)
      .filter(([, record]) => options.groupIds === undefined || options.groupIds.includes(record.groupId))
      .map(([key]) => key)
      .slice(0, options.limit ?? Number.POSITIVE_INFINITY);
  }
  async deleteKeys(keys: string[]): Promise<void> {
    for (const key of keys) this.records.delete(key);
  }
}

/** A VectorStore over a Map: id → { document, vector }. */
export class MapVectorStore extends VectorStore {
  declare FilterType: (document: DocumentInterface) => boolean;
  readonly entries = new Map<string, { document: DocumentInterface; vector: number[] }>();

  constructor(embeddings: EmbeddingsInterface) {
    super(embeddings, {});
  }
  _vectorstoreType(): string {
    return "map";
  }
  async addVectors(vectors: number[][], documents: DocumentInterface[], options: { ids?: string[] } = {}): Promise<string[]> {
    return documents.map((document, i) => {
      const id = options.ids?.[i] ?? document.id ?? `doc-${this.entries.size}`;
      this.entries.set(id, { document, vector: vectors[i] ?? [] });
      return id;
    });
  }
  async addDocuments(documents: DocumentInterface[], options: { ids?: string[] } = {}): Promise<string[]> {
    return this.addVectors(await this.embeddings.embedDocuments(documents.map((d) => d.pageContent)), documents, options);
  }
  override async delete(params: { ids?: string[] } = {}): Promise<void> {
    for (const id of params.ids ?? []) this.entries.delete(id);
  }
  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    const score = (v: number[]) => v.reduce((sum, x, i) => sum + x * (query[i] ?? 0), 0);
    return [...this.entries.values()]
      .map(({ document, vector }) => [new Document({ ...document }), score(vector)] as [Document, number])
      .sort((a, b) => b[1] - a[1])
      .slice(0, k);
  }
}
