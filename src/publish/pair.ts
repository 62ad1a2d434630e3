// Which pair document a file at a target path is, so `--overwrite` replaces a pair and never
// breaks another: it never removes the export of a different manifest (two runs with different
// manifests and one export, one after the other, would leave the first manifest without its
// export; the locks cannot prevent that), never removes an export given as `--manifest` (its
// records would be gone), and never removes a manifest given as `--export` (its export would be
// left without one). An export names its manifest by hash (`manifest_sha256`; a manifest cannot
// name its export), read from the first bytes of a canonical export this package wrote; a
// canonical manifest begins with its counts. A file reformatted by another tool (indented, keys
// reordered) still verifies, so when those first bytes do not decide, the file is read with the
// strict grammar (its records skipped, not built) and its top-level members decide. Only a file
// that is neither document is replaced as before.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { MANIFEST_SCHEMAS } from "../documents/manifest-v2.js";
import { fieldsShape, SKIP_SHAPE, STRING_SHAPE } from "../core/parse-line.js";
import { readFileChunks, StrictJsonStream } from "../core/strict-json-stream.js";
import { isPlainObject } from "../core/guards.js";
import { startsWithByteOrderMark } from "../core/strict-document.js";
import { sha256 as Sha256Field } from "../documents/fields.js";
import { IngestExportSchema, IngestManifestSchema } from "../documents/schemas.js";
import { INDEX_SCHEMA } from "../documents/ingest-index.js";
import { PublishError } from "./targets.js";
import { displayText } from "../core/display-text.js";

/** The canonical export starts with these two keys (sorted: manifest_schema, manifest_sha256), of any manifest version. */
const BINDING_PREFIX = new RegExp(
  `^\\{"manifest_schema":"(?:${MANIFEST_SCHEMAS.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})","manifest_sha256":"([0-9a-f]{64})"`,
);
const PREFIX_BYTES = 256;

const isRegularFile = async (path: string): Promise<boolean> => (await lstat(path).catch(() => null))?.isFile() === true;

/** The canonical manifest of every version starts so (sorted keys: `counts` first, `admitted` first in it). */
const MANIFEST_PREFIX = '{"counts":{"admitted":';

/** What a file at a target path is: an export (bound to a manifest's sha256), a manifest, a sharded run's index, or none of them (null). */
export type PairDocument = { readonly kind: "export"; readonly manifestSha256: string } | { readonly kind: "manifest" } | { readonly kind: "index" } | null;

/**
 * `bytes` without a leading UTF-8 byte order mark: verify refuses a file with one, but a re-save
 * that added it must not cost the file, so the document behind it decides.
 */
function withoutByteOrderMark(bytes: Buffer): Buffer {
  return startsWithByteOrderMark(bytes) ? bytes.subarray(3) : bytes;
}

/** The pair document the file at `path` is (see the file's head); null for a file that is neither, or none. */
export async function pairDocumentOf(path: string): Promise<PairDocument> {
  if (!(await isRegularFile(path))) return null;
  const handle = await open(path, "r").catch(() => null);
  if (handle === null) return null;
  try {
    const buffer = Buffer.alloc(PREFIX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PREFIX_BYTES, 0);
    const prefix = withoutByteOrderMark(buffer.subarray(0, bytesRead)).toString("latin1");
    const match = BINDING_PREFIX.exec(prefix);
    if (match !== null) return { kind: "export", manifestSha256: match[1] as string };
    if (prefix.startsWith(MANIFEST_PREFIX)) return { kind: "manifest" };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
  return strictPairDocument(path);
}

/** The members that say what a document is; everything else, records included, is skipped. */
const BINDING_SHAPE = fieldsShape([
  ["manifest_schema", STRING_SHAPE],
  ["manifest_sha256", STRING_SHAPE],
  ["schema", STRING_SHAPE],
]);
/** Longest string, key or number held while looking: the members read are short; anything else is skipped. */
const MAX_TOKEN_BYTES = 16 << 20;
const EXPORT_KEYS: ReadonlySet<string> = new Set(Object.keys(IngestExportSchema.shape));
const MANIFEST_KEYS: ReadonlySet<string> = new Set(Object.keys(IngestManifestSchema.shape));
/** Members every manifest has and no export has: a document with all three before its records is taken for a manifest. */
const MANIFEST_ONLY_MEMBERS = ["counts", "pipeline", "policy"] as const;

/**
 * What a document that is not laid out canonically is, read with the strict grammar: null when
 * it is neither an export nor a manifest. The read stops at the first byte the grammar refuses
 * (verify would refuse the file too), and as soon as the members before the records decide: an
 * export's binding, a manifest's own members, or a member neither document has (a file with one
 * cannot verify as either). Only a document whose deciding members come after its records is read
 * to its end.
 */
async function strictPairDocument(path: string): Promise<PairDocument> {
  const reader = new StrictJsonStream({ shape: BINDING_SHAPE, stream: new Map([["records", SKIP_SHAPE]]), maxTokenBytes: MAX_TOKEN_BYTES });
  let first = true;
  try {
    for await (const read of readFileChunks(path, 1 << 18)) {
      // Only the first chunk can start with the mark (chunks are far longer than it).
      const chunk = first ? withoutByteOrderMark(read) : read;
      first = false;
      const events = reader.write(chunk);
      if (reader.failed !== null) return null;
      for (const event of events) {
        if (event.type !== "array_start") continue;
        // Members before the array: a later duplicate or a broken document would make verify
        // refuse the file, and then keeping it is only the cautious side.
        const members = event.members;
        const known = documentOf(members, false);
        if (known !== null) return known;
        if (Object.keys(members).some((key) => !EXPORT_KEYS.has(key) && !MANIFEST_KEYS.has(key))) return null;
      }
    }
    return documentOf(reader.end().value, true);
  } catch {
    // Not a strict JSON document (or unreadable): verify cannot take it for either document.
    return null;
  }
}

/** What `root` is by its top-level members (`whole`: all of them, else those before its records). */
function documentOf(root: unknown, whole: boolean): PairDocument {
  if (!isPlainObject(root)) return null;
  const schema = root["manifest_schema"];
  const sha256 = root["manifest_sha256"];
  if (typeof schema === "string" && MANIFEST_SCHEMAS.includes(schema) && Sha256Field.safeParse(sha256).success) {
    return { kind: "export", manifestSha256: sha256 as string };
  }
  const named = root["schema"];
  if (typeof named === "string" && MANIFEST_SCHEMAS.includes(named)) return { kind: "manifest" };
  if (named === INDEX_SCHEMA) return { kind: "index" };
  // A manifest's schema member sorts after its records; its own members before them say enough.
  if (!whole && MANIFEST_ONLY_MEMBERS.every((key) => isPlainObject(root[key]))) return { kind: "manifest" };
  return null;
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
 * Refuses (PublishError, nothing touched) to replace what would break another pair or run: a
 * sharded run's index at either path (consumers pin it), an export at `manifestPath` (its
 * records would be lost), a manifest at `exportPath` (its export would be left without one), or
 * an export at `exportPath` bound to a manifest other than the one at `manifestPath` (that
 * manifest would be left without its export).
 */
export async function assertPairReplaceable(manifestPath: string, exportPath: string | null): Promise<void> {
  const atManifest = await pairDocumentOf(manifestPath);
  const atExport = exportPath === null ? null : await pairDocumentOf(exportPath);
  for (const [flag, path, found] of [
    ["--manifest", manifestPath, atManifest],
    ["--export", exportPath, atExport],
  ] as const) {
    if (found?.kind === "index" && path !== null) {
      throw new PublishError(
        `refusing to replace ${flag} ${displayText(path)}: it is the index of a sharded run (${INDEX_SCHEMA}), which consumers pin, not a${flag === "--manifest" ? " manifest" : "n export"}. ` +
          `Choose another ${flag}, or delete ${displayText(path)} yourself if nothing needs it`,
      );
    }
  }
  if (atManifest?.kind === "export") {
    throw new PublishError(
      `refusing to replace --manifest ${displayText(manifestPath)}: it is an export (of manifest_sha256 ${atManifest.manifestSha256}), not a manifest, ` +
        `and replacing it would lose that pair's records. Name the manifest with --manifest, or delete ${displayText(manifestPath)} yourself if no manifest needs it`,
    );
  }
  if (exportPath === null || atExport === null) return;
  if (atExport.kind === "manifest") {
    throw new PublishError(
      `refusing to replace --export ${displayText(exportPath)}: it is a manifest, not an export, and replacing it would leave its export without a manifest. ` +
        `Choose another --export, or delete ${displayText(exportPath)} yourself if no export needs it`,
    );
  }
  if (atExport.kind !== "export" || (await fileSha256(manifestPath)) === atExport.manifestSha256) return;
  throw new PublishError(
    `refusing to replace --export ${displayText(exportPath)}: it is the export of another manifest (manifest_sha256 ${atExport.manifestSha256}), ` +
      `not of --manifest ${displayText(manifestPath)}, and replacing it would leave that manifest without its export. ` +
      `Choose another --export, or delete ${displayText(exportPath)} yourself if no manifest needs it (for example one left by an interrupted run)`,
  );
}
