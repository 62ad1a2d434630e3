// In-memory validation of what is about to be published. Nothing touches the disk until both
// documents are known to be complete, schema-valid and bound to each other, so a bug earlier in the run
// can never produce a file that verify would have to refuse later.
import type { CanonicalDocument } from "../documents/manifest-build.js";
import type { FramedDocument } from "./framed-document.js";
import { sha256Hex } from "../core/hash.js";
import type { z } from "zod";
import type { IngestExport } from "../documents/schemas.js";
import { exportDocumentSchema, exportSchemaFor, manifestDocumentSchema, type ManifestDocument } from "../documents/manifest-v2.js";
import { PublishError } from "./targets.js";

/** The documents to publish: the manifest and, optionally, the export, as canonical documents in memory. */
export interface InMemoryDocuments {
  /** A manifest of any version; the export must be of the same version. */
  readonly manifest: CanonicalDocument<ManifestDocument>;
  readonly export: CanonicalDocument<IngestExport> | null;
}

/**
 * The documents of a streamed run, framed from their spools: each was validated piece by piece
 * as it was built (every record against its schema, the head against the document schema), so
 * what is checked here is the binding between them.
 */
interface FramedDocuments {
  readonly framed: true;
  readonly manifest: FramedDocument;
  readonly export: FramedDocument | null;
  /** What the manifest's run block records as export_requested. */
  readonly exportRequested: boolean;
  /** The manifest digest the export's head names (null without an export). */
  readonly exportNamesManifest: string | null;
}

/** What `publish` takes: both documents in memory, or both framed from spools. */
export type PublishDocuments = InMemoryDocuments | FramedDocuments;

/** True for documents framed from spools. */
function isFramed(documents: PublishDocuments): documents is FramedDocuments {
  return "framed" in documents && documents.framed === true;
}

function checkBytes(label: string, document: CanonicalDocument<unknown>, schema: z.ZodType): void {
  if (sha256Hex(document.bytes) !== document.sha256) throw new PublishError(`refusing to publish: the ${label} bytes do not match its sha256`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(document.bytes);
  } catch (error) {
    throw new PublishError(`refusing to publish: the ${label} bytes are not UTF-8`, { cause: error });
  }
  if (text !== document.json) throw new PublishError(`refusing to publish: the ${label} bytes are not its JSON text`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PublishError(`refusing to publish: the ${label} is not JSON`, { cause: error });
  }
  if (!schema.safeParse(parsed).success) throw new PublishError(`refusing to publish: the ${label} does not match its schema`);
}

/** Throws PublishError unless the documents form a complete, self-consistent pair. */
export function validateDocuments(documents: PublishDocuments, exportRequested: boolean): void {
  const framed = isFramed(documents);
  const named = framed ? null : documents.manifest.document.schema;
  if (!framed) checkBytes("manifest", documents.manifest, manifestDocumentSchema(named));
  if ((framed ? documents.exportRequested : documents.manifest.document.run.export_requested) !== exportRequested) {
    throw new PublishError(
      exportRequested
        ? "refusing to publish: an export path was given but the manifest records export_requested=false"
        : "refusing to publish: the manifest records an export but no export path was given",
    );
  }
  if ((documents.export !== null) !== exportRequested) throw new PublishError("an export path needs an export document and the reverse");
  if (documents.export === null) return;
  if (!framed) checkBytes("export", documents.export, exportDocumentSchema(exportSchemaFor(named)));
  if ((framed ? documents.exportNamesManifest : documents.export.document.manifest_sha256) !== documents.manifest.sha256) {
    throw new PublishError("refusing to publish: the export is not bound to this manifest");
  }
}
