// Publication of an ingest run: the export first, the manifest last, each written atomically
// (temp file + rename), so a reader never sees a manifest whose export is missing or partial.
// This is the first version; crash safety under signals, locking and rollback are specified in
// docs/publication.md.
import writeFileAtomic from "write-file-atomic";
import { rm } from "node:fs/promises";
import type { CanonicalDocument } from "../manifest/build.js";
import type { IngestExport, IngestManifest } from "../manifest/schemas.js";
import { PublishError, type PublishTargets } from "./targets.js";

export interface PublishResult {
  readonly manifestPath: string;
  readonly manifestSha256: string;
  readonly exportPath: string | null;
  readonly exportSha256: string | null;
}

export interface PublishDocuments {
  readonly manifest: CanonicalDocument<IngestManifest>;
  readonly export: CanonicalDocument<IngestExport> | null;
}

/** With --overwrite: remove the previous pair once every pre-flight check has passed. */
export async function removePreviousPair(targets: PublishTargets): Promise<void> {
  // Manifest first: if removal of the export fails, no manifest is left pointing at it.
  await rm(targets.manifestPath, { force: true });
  if (targets.exportPath !== null) await rm(targets.exportPath, { force: true });
}

export async function publish(documents: PublishDocuments, targets: PublishTargets): Promise<PublishResult> {
  if ((documents.export === null) !== (targets.exportPath === null)) {
    throw new PublishError("an export path needs an export document and the reverse");
  }
  const written: string[] = [];
  try {
    if (documents.export !== null && targets.exportPath !== null) {
      await writeFileAtomic(targets.exportPath, Buffer.from(documents.export.bytes), { mode: 0o644, fsync: true });
      written.push(targets.exportPath);
    }
    await writeFileAtomic(targets.manifestPath, Buffer.from(documents.manifest.bytes), { mode: 0o644, fsync: true });
  } catch (error) {
    for (const path of written) await rm(path, { force: true });
    throw new PublishError(`${error instanceof Error ? error.message : "write failed"}; nothing written`, { cause: error });
  }
  return {
    manifestPath: targets.manifestPath,
    manifestSha256: documents.manifest.sha256,
    exportPath: targets.exportPath,
    exportSha256: documents.export?.sha256 ?? null,
  };
}
