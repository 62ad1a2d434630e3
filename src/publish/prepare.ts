// In-memory validation of what is about to be published. Nothing touches the disk until both
// documents are known to be complete, schema-valid and bound to each other, so a bug earlier in the run
// can never produce a file that verify would have to refuse later.
import type { CanonicalDocument } from "../documents/manifest-build.js";
import { sha256Hex } from "../core/hash.js";
import { IngestExportSchema, IngestManifestSchema, type IngestExport, type IngestManifest } from "../documents/schemas.js";
import { PublishError } from "./targets.js";

/** The documents to publish: the manifest and, optionally, the export, as canonical documents. */
export interface PublishDocuments {
  readonly manifest: CanonicalDocument<IngestManifest>;
  readonly export: CanonicalDocument<IngestExport> | null;
}

function checkBytes(label: string, document: CanonicalDocument<unknown>, schema: typeof IngestManifestSchema | typeof IngestExportSchema): void {
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
  checkBytes("manifest", documents.manifest, IngestManifestSchema);
  if (documents.manifest.document.run.export_requested !== exportRequested) {
    throw new PublishError(
      exportRequested
        ? "refusing to publish: an export path was given but the manifest records export_requested=false"
        : "refusing to publish: the manifest records an export but no export path was given",
    );
  }
  if ((documents.export !== null) !== exportRequested) throw new PublishError("an export path needs an export document and the reverse");
  if (documents.export !== null) {
    checkBytes("export", documents.export, IngestExportSchema);
    if (documents.export.document.manifest_sha256 !== documents.manifest.sha256) {
      throw new PublishError("refusing to publish: the export is not bound to this manifest");
    }
  }
}
