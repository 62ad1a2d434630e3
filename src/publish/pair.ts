// Which manifest an existing export belongs to, so `--overwrite` never removes the export of a
// different manifest (two runs with different manifests and one export, one after the other,
// would leave the first manifest without its export; the locks cannot prevent that). An export
// names its manifest by hash (`manifest_sha256`; a manifest cannot name its export), read from
// the first bytes of a canonical export this package wrote; a file not recognisable as one
// cannot be any manifest's pair and is replaced as before.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { MANIFEST_SCHEMAS } from "../documents/manifest-v2.js";
import { PublishError } from "./targets.js";
import { displayText } from "../core/display-text.js";

/** The canonical export starts with these two keys (sorted: manifest_schema, manifest_sha256), of any manifest version. */
const BINDING_PREFIX = new RegExp(
  `^\\{"manifest_schema":"(?:${MANIFEST_SCHEMAS.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})","manifest_sha256":"([0-9a-f]{64})"`,
);
const PREFIX_BYTES = 256;

const isRegularFile = async (path: string): Promise<boolean> => (await lstat(path).catch(() => null))?.isFile() === true;

/** The manifest sha256 an export written by this package is bound to, or null when it is not one. */
export async function exportBinding(exportPath: string): Promise<string | null> {
  if (!(await isRegularFile(exportPath))) return null;
  const handle = await open(exportPath, "r").catch(() => null);
  if (handle === null) return null;
  try {
    const buffer = Buffer.alloc(PREFIX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PREFIX_BYTES, 0);
    const match = BINDING_PREFIX.exec(buffer.subarray(0, bytesRead).toString("latin1"));
    return match?.[1] ?? null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

async function fileSha256(path: string): Promise<string | null> {
  if (!(await isRegularFile(path))) return null;
  try {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest("hex");
  } catch {
    return null;
  }
}

/**
 * Refuses (PublishError, nothing touched) when the file at `exportPath` is an export bound to a
 * manifest other than the one at `manifestPath`: removing it would orphan that manifest.
 */
export async function assertExportBelongsToManifest(manifestPath: string, exportPath: string): Promise<void> {
  const bound = await exportBinding(exportPath);
  if (bound === null) return;
  if ((await fileSha256(manifestPath)) === bound) return;
  throw new PublishError(
    `refusing to replace --export ${exportPath}: it is the export of another manifest (manifest_sha256 ${bound}), ` +
      `not of --manifest ${displayText(manifestPath)}, and replacing it would leave that manifest without its export. ` +
      `Choose another --export, or delete ${displayText(exportPath)} yourself if no manifest needs it (for example one left by an interrupted run)`,
  );
}
