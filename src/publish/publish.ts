// Crash-safe publication of an ingest run (docs/publication.md tells users the same rules).
// Order: check the pair's binding → take the lock (unless the caller holds it) → with
// `overwrite`, remove the previous pair (manifest first) → write both temps (0600, fsynced) →
// link the export (no-clobber) → fsync its directory → link the manifest: COMMIT → remove the
// temps, fsync the directory. So a manifest only appears after its export (a kill -9 can leave
// an export alone, never a manifest); link(2) never replaces a file someone else put at the
// path; before the commit any failure, abort or lost lock rolls back (rollback.ts: temps removed,
// our export taken back only if still ours); after it, the pair stands and later errors are
// logged, never thrown, leaving at most a hidden byte-identical `.tmp`.
import { dirname, resolve } from "node:path";
import { nodePublishFs, type PublishFs } from "./fs.js";
import { errorCode } from "../core/errors.js";
import { lockTargets, type PublicationLock } from "./lock.js";
import { assertPairReplaceable } from "./pair.js";
import type { FramedDocument } from "./framed-document.js";
import { removeTemps, withdrawTarget, type RollbackLog } from "./rollback.js";
import { PublishError, type PublishTargets } from "./targets.js";
import { syncDirectory, unlinkQuietly, writeTemp, type TempFile } from "./temp.js";
import { displayText } from "../core/display-text.js";

/**
 * The documents of a run, framed from their spools: each was validated piece by piece as it was
 * built (every record against its schema, the head against the document schema), so what
 * `publish` checks is the binding between them.
 */
export interface PublishDocuments {
  readonly manifest: FramedDocument;
  readonly export: FramedDocument | null;
  /** What the manifest's run block records as export_requested. */
  readonly exportRequested: boolean;
  /** The manifest digest the export's head names (null without an export). */
  readonly exportNamesManifest: string | null;
}

/**
 * Where to publish: the manifest path, the export path (optional), and whether to overwrite: remove
 * an existing manifest/export first (under the lock); otherwise an existing target fails.
 */
export type PublishRequest = Pick<PublishTargets, "manifestPath" | "overwrite"> & { readonly exportPath?: string | null };

/** Options of `publish`. */
export interface PublishOptions {
  readonly fs?: PublishFs;
  /** A lock the caller already holds on this manifest path (the CLI holds it from pre-flight on); without one, another run's lock fails at once. */
  readonly lock?: PublicationLock;
  /** Aborting before the commit rolls back and rejects with PublishError. */
  readonly signal?: AbortSignal;
  /** Rollback and cleanup notes (a retained concurrent file, a leftover temp). */
  readonly log?: RollbackLog;
}

/** What publication wrote. */
export interface PublishResult {
  readonly manifestPath: string;
  readonly manifestSha256: string;
  readonly exportPath: string | null;
  readonly exportSha256: string | null;
}

/**
 * Removes the previous manifest, then the previous export. Missing files are fine. Refuses,
 * before removing anything, to break another pair (pair.ts): an export at the manifest path, a
 * manifest at the export path, an export that belongs to a different manifest.
 */
export async function removePreviousPair(request: Pick<PublishRequest, "manifestPath" | "exportPath">, fs: PublishFs = nodePublishFs): Promise<void> {
  await assertPairReplaceable(request.manifestPath, request.exportPath ?? null);
  // Manifest first: if the export cannot be removed, no manifest is left that vouches for it.
  const targets: Array<[string, string]> = [["manifest", request.manifestPath]];
  if (request.exportPath != null) targets.push(["export", request.exportPath]);
  for (const [label, path] of targets) {
    const failure = await unlinkQuietly(fs, path);
    if (failure !== null) throw new PublishError(`could not remove the previous ${label} ${displayText(path)} (${failure})`);
  }
  for (const directory of new Set(targets.map(([, path]) => dirname(path)))) await syncDirectory(fs, directory);
}

/** `step` names the file being written, for errors that carry no path (a write on a handle). */
function describe(error: unknown, step: string): string {
  if (error instanceof PublishError) return error.message;
  const code = errorCode(error);
  const path = (error as { path?: unknown } | null)?.path;
  if (code !== null) return typeof path === "string" ? `${code} on ${displayText(path)}` : `${code} while ${step}`;
  return `${error instanceof Error ? error.message : "write failed"} while ${step}`;
}

async function linkNoClobber(fs: PublishFs, temp: string, target: string): Promise<void> {
  try {
    await fs.link(temp, target);
  } catch (error) {
    if (errorCode(error) === "EEXIST") {
      throw new PublishError(`refusing to overwrite existing file: ${target} (it appeared during the run; it was left untouched)`, { cause: error });
    }
    throw error;
  }
}

/**
 * Publishes a manifest (and its export) crash-safely: the export first, the manifest last as the
 * commit; on any failure before the commit, nothing of the new pair remains (docs/publication.md).
 */
export async function publish(documents: PublishDocuments, request: PublishRequest, options: PublishOptions = {}): Promise<PublishResult> {
  const fs = options.fs ?? nodePublishFs;
  const log = options.log ?? (() => undefined);
  const manifestPath = resolve(request.manifestPath);
  const exportPath = request.exportPath == null ? null : resolve(request.exportPath);
  if (exportPath === manifestPath) throw new PublishError("manifest and export paths must be different files");
  // Nothing touches the disk unless the documents form a complete pair bound to each other.
  if (documents.exportRequested !== (exportPath !== null)) {
    throw new PublishError(
      exportPath !== null
        ? "refusing to publish: an export path was given but the manifest records export_requested=false"
        : "refusing to publish: the manifest records an export but no export path was given",
    );
  }
  if ((documents.export !== null) !== (exportPath !== null)) throw new PublishError("an export path needs an export document and the reverse");
  if (documents.export !== null && documents.exportNamesManifest !== documents.manifest.sha256) {
    throw new PublishError("refusing to publish: the export is not bound to this manifest");
  }

  const lock = options.lock ?? (await lockTargets({ manifestPath, exportPath }, 0));
  const temps = new Set<string>();
  const published: TempFile[] = [];
  const checkpoint = (): void => {
    if (options.signal?.aborted) throw new PublishError("interrupted during publication");
    if (lock.compromised !== null) throw new PublishError(`the publication lock ${displayText(lock.lockPath)} was lost (${lock.compromised.message})`);
  };
  try {
    let manifestTemp: string;
    let step = `removing the previous pair of ${displayText(manifestPath)}`;
    try {
      checkpoint();
      if (request.overwrite) await removePreviousPair({ manifestPath, exportPath }, fs);
      checkpoint();
      step = `writing the manifest ${displayText(manifestPath)}`;
      const manifest = await writeTemp(fs, manifestPath, documents.manifest, (path) => temps.add(path));
      manifestTemp = manifest.path;
      checkpoint();
      if (documents.export !== null && exportPath !== null) {
        step = `writing the export ${displayText(exportPath)}`;
        const exported = await writeTemp(fs, exportPath, documents.export, (path) => temps.add(path));
        checkpoint();
        await linkNoClobber(fs, exported.path, exportPath);
        published.push({ path: exportPath, identity: exported.identity });
        // The temp is now a second name of the published export; if it cannot go, rollback or
        // the post-commit cleanup tries again.
        if ((await unlinkQuietly(fs, exported.path)) === null) temps.delete(exported.path);
        // The export's directory entry must be durable before the manifest can vouch for it.
        await syncDirectory(fs, dirname(exportPath));
      }
      checkpoint();
      step = `publishing the manifest ${displayText(manifestPath)}`;
      await linkNoClobber(fs, manifest.path, manifestPath);
    } catch (error) {
      // Newest first: the export is the only target that can have been published here.
      await removeTemps(fs, temps, log);
      for (const target of published.reverse()) await withdrawTarget(fs, target, log);
      throw new PublishError(`${describe(error, step)}; nothing published`, { cause: error });
    }
    // Committed. Nothing below may undo or fail the publication.
    if ((await unlinkQuietly(fs, manifestTemp)) === null) temps.delete(manifestTemp);
    await removeTemps(fs, temps, log);
    for (const path of temps) log(`published; a byte-identical temporary file remains at ${displayText(path)}`);
    await syncDirectory(fs, dirname(manifestPath));
  } finally {
    if (options.lock === undefined) await lock.release();
  }
  return {
    manifestPath,
    manifestSha256: documents.manifest.sha256,
    exportPath,
    exportSha256: documents.export?.sha256 ?? null,
  };
}
