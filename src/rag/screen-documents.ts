// Screening a framework's documents as an ingest run screens records: each becomes an ingest
// input (text, id, metadata flattened to strings) for `ingestRecords` (the admission rules of
// `little-canary ingest`) and comes back admitted or held with the manifest's reasons; metadata
// that cannot be flattened is held as malformed before any check. Nothing is dropped. Each
// document is read once into a snapshot, and an admitted one is rebuilt from it: passing on the
// caller's object would pass on whatever its getters answer on a next read, which no screen saw.
import { LittleCanaryError } from "../core/errors.js";
import type { PolicyOverrides } from "../documents/policy.js";
import type { HoldReason } from "../documents/schemas.js";
import { manifestFacts } from "../documents/manifest-v2.js";
import type { CheckingPipeline } from "../ingest/gate.js";
import { ingestRecords, type IngestInput } from "../ingest/run.js";
import { snapshotMetadata } from "./flatten-metadata.js";

/** How documents are screened. */
export interface ScreenDocumentsOptions {
  /** The pipeline that checks each segment (a SecurityPipeline). */
  readonly pipeline: CheckingPipeline;
  /** strict/v1 with these overrides. */
  readonly policy?: PolicyOverrides;
  /** Documents checked at once (default 1). */
  readonly concurrency?: number;
  /** Let a pipeline this library did not build run (its results are then not context-verified). */
  readonly unverifiedPipeline?: boolean;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (default 5). */
  readonly maxCanaryFailures?: number;
}

/** A document that was not admitted, and why. */
export interface HeldDocument<D> {
  readonly document: D;
  /** Its position in the list given. */
  readonly index: number;
  /** The manifest's hold reasons (`blocked`, `flagged`, `degraded`, `malformed`, …). */
  readonly reasons: readonly HoldReason[];
  /** The manifest's detail for a record held before any check (never the document's text). */
  readonly detail: string | null;
}

/** Every document, admitted or held. */
export interface ScreenedDocuments<D> {
  /** The admitted documents, in the order given, each rebuilt from what was screened (see `rebuild`). */
  readonly admitted: readonly D[];
  readonly held: readonly HeldDocument<D>[];
  /** SHA-256 of the run's manifest (in memory; not published). */
  readonly manifestSha256: string;
}

/** The parts of a document that are screened. */
export interface DocumentFields {
  readonly text: unknown;
  readonly id: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** What was screened of one admitted document: its text, its id and a plain copy of its metadata. */
export interface ScreenedFields {
  readonly text: string;
  readonly id: string | null;
  /** A deep copy of the metadata as it was read and screened (plain objects, arrays, leaves). */
  readonly metadata: Record<string, unknown>;
}

/**
 * Screens `documents` (see the module comment): `fields` picks each one's text, id and metadata
 * (called once per document), and `rebuild` makes the document to pass on from what was
 * screened, e.g. a new framework Document with exactly that text, id and metadata.
 */
export async function screenDocumentRecords<D>(
  documents: readonly D[],
  fields: (document: D) => DocumentFields,
  options: ScreenDocumentsOptions,
  rebuild: (screened: ScreenedFields, original: D) => D,
): Promise<ScreenedDocuments<D>> {
  const inputs: IngestInput[] = [];
  const inputOf: number[] = [];
  const early: HeldDocument<D>[] = [];
  const snapshots = new Map<number, ScreenedFields>();
  documents.forEach((document, index) => {
    const { text, id, metadata } = fields(document);
    try {
      const { flat, copy } = snapshotMetadata(metadata, `document ${index}'s metadata`);
      inputs.push({ text, id, metadata: flat });
      inputOf.push(index);
      // Only a string text can be admitted; anything else is held as malformed by ingest.
      if (typeof text === "string") snapshots.set(index, { text, id, metadata: copy });
    } catch (error) {
      if (!(error instanceof LittleCanaryError)) throw error;
      early.push({ document, index, reasons: ["malformed"], detail: error.message });
    }
  });
  const run = await ingestRecords(
    options.pipeline,
    { inputs },
    {
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.maxCanaryFailures !== undefined ? { maxCanaryFailures: options.maxCanaryFailures } : {}),
      unverifiedPipeline: options.unverifiedPipeline === true,
    },
  );
  const outcome = new Map<number, HeldDocument<D> | "admitted">();
  for (const held of early) outcome.set(held.index, held);
  for (const entry of manifestFacts(run.manifest.document)) {
    const index = inputOf[entry.index] as number;
    const document = documents[index] as D;
    outcome.set(index, entry.admission === "admitted" ? "admitted" : { document, index, reasons: entry.hold_reasons, detail: entry.detail });
  }
  const admitted: D[] = [];
  const held: HeldDocument<D>[] = [];
  documents.forEach((document, index) => {
    const result = outcome.get(index);
    if (result === "admitted") {
      const screened = snapshots.get(index);
      if (screened === undefined) throw new LittleCanaryError("config", `document ${index} was admitted without a text`);
      admitted.push(rebuild(screened, document));
    } else if (result !== undefined) held.push(result);
    else throw new LittleCanaryError("config", `document ${index} has no outcome`);
  });
  return { admitted, held, manifestSha256: run.manifest.sha256 };
}
