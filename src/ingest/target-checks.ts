// Pre-flight rules for an ingest run's output paths, checked with its settings, before anything
// is read, checked or deleted (and again under the publication locks): distinct targets, never
// the input file, never a directory, never an existing file without --overwrite, and a writable
// parent directory. "Existing" is lstat-based, so a dangling symlink counts: publication links
// without following symlinks and would otherwise refuse it only at the end of a long run.
import { constants } from "node:fs";
import { access, lstat, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { displayText } from "../core/display-text.js";
import { fileIdentity, sameFile, specialFileKind, type FileIdentity } from "../core/file-identity.js";
import { SCRATCH_NAME_EXTRA } from "../publish/scratch-file.js";
import { PublishError, type PublishTargets } from "../publish/targets.js";

/** The most bytes one file name holds (NAME_MAX on Linux and macOS file systems). */
const NAME_MAX = 255;
/** The longest target name: ingest writes scratch files beside a target whose names are longer (SCRATCH_NAME_EXTRA). */
const MAX_TARGET_NAME_BYTES = NAME_MAX - SCRATCH_NAME_EXTRA;

/** Each target with the flag that names it. */
function flagged(targets: PublishTargets): Array<[string, string]> {
  return [["--manifest", targets.manifestPath], ...(targets.exportPath === null ? [] : [["--export", targets.exportPath] as [string, string]])];
}

/** Pre-flight checks of the output paths, before anything is read or deleted; throws PublishError naming the path. */
export async function preflightTargets(targets: PublishTargets): Promise<void> {
  // By identity (core/file-identity.ts): an export that is a symlink to the manifest, a manifest
  // symlinked or hard-linked to the input, is one file too.
  const manifest = await fileIdentity(targets.manifestPath);
  const exported = targets.exportPath === null ? null : await fileIdentity(targets.exportPath);
  if (exported !== null && sameFile(exported, manifest)) {
    throw new PublishError("--manifest and --export must be different paths");
  }
  // A streamed input read from a file (`- < records.jsonl`) is known by its inode alone: with
  // --overwrite, a target that is that file would be deleted before a byte of it was read.
  const input = targets.inputPath === null ? null : await fileIdentity(targets.inputPath);
  const streamed = targets.inputInode ?? null;
  const isInput = (target: FileIdentity): boolean => (input !== null ? sameFile(input, target) : streamed !== null && streamed === target.inode);
  if (isInput(manifest)) throw new PublishError("--manifest must not be the input file");
  // An input file this user may not read (or a path through a file, ENOTDIR) is refused now,
  // before --overwrite removes anything (one that does not exist is a refused setting in its own
  // words). access(2) opens nothing, so a named pipe is not consumed.
  const inputPath = targets.inputPath;
  if (inputPath !== null) {
    await access(inputPath, constants.R_OK).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return;
      throw new PublishError(`could not read input file ${displayText(inputPath)} (${error.code ?? "not readable"})`);
    });
  }
  if (exported !== null && isInput(exported)) throw new PublishError("--export must not be the input file");
  for (const [flag, path] of flagged(targets)) {
    const nameBytes = Buffer.byteLength(basename(path));
    if (nameBytes > MAX_TARGET_NAME_BYTES) {
      throw new PublishError(
        `${flag} file name is too long: ${nameBytes} bytes, at most ${MAX_TARGET_NAME_BYTES} (ingest writes scratch files beside it, whose names are up to ${SCRATCH_NAME_EXTRA} bytes longer, and a file name holds ${NAME_MAX}); choose a shorter name`,
      );
    }
    if ((await stat(path).catch(() => null))?.isDirectory()) throw new PublishError(`${flag} ${displayText(path)} is a directory`);
    const special = await specialFileKind(path);
    if (special !== null) throw new PublishError(`${flag} ${displayText(path)} is ${special}, not a regular file: name a file to write`);
    if ((await lstat(path).catch(() => null)) !== null && !targets.overwrite)
      throw new PublishError(`${flag} ${displayText(path)} already exists (use --overwrite to replace it)`);
  }
}

/** Each target's directory must exist, be a directory and be writable; the error says which failed. */
export async function checkTargetDirectories(targets: PublishTargets): Promise<void> {
  for (const [flag, path] of flagged(targets)) {
    const dir = dirname(resolve(path));
    const info = await stat(dir).catch(() => null);
    // A missing directory is named as missing: "not writable" sends the user after permissions.
    if (info === null) throw new PublishError(`${flag} directory does not exist: ${displayText(dir)}`);
    if (!info.isDirectory()) throw new PublishError(`${flag} directory is not a directory: ${displayText(dir)}`);
    try {
      await access(dir, constants.W_OK);
    } catch {
      throw new PublishError(`${flag} directory is not writable: ${displayText(dir)}`);
    }
  }
}
