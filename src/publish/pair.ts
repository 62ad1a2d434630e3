// Which manifest an existing export belongs to, so `--overwrite` never removes the export of a
// different manifest (two runs with different manifests and one export, one after the other,
// would leave the first manifest without its export; the locks cannot prevent that). An export
// names its manifest by hash (`manifest_sha256`; a manifest cannot name its export), read from
// the first bytes of a canonical export this package wrote. An export reformatted by another
// tool (indented, keys reordered) still verifies against its manifest, so when those first bytes
// do not match, the file is read with the strict grammar (its records skipped, not built) and its
// top-level members decide. Only a file that is not such a document cannot be any manifest's
// pair, and is replaced as before.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { MANIFEST_SCHEMAS } from "../documents/manifest-v2.js";
import { fieldsShape, SKIP_SHAPE, STRING_SHAPE } from "../core/parse-line.js";
import { readFileChunks, StrictJsonStream } from "../core/strict-json-stream.js";
import { isPlainObject } from "../core/guards.js";
import { sha256 as Sha256Field } from "../documents/fields.js";
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
    if (match !== null) return match[1] as string;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
  return strictBinding(exportPath);
}

/** The two members that bind an export to its manifest; everything else, records included, is skipped. */
const BINDING_SHAPE = fieldsShape([
  ["manifest_schema", STRING_SHAPE],
  ["manifest_sha256", STRING_SHAPE],
]);
/** Longest string, key or number held while looking: the two members are short; anything else is skipped. */
const MAX_TOKEN_BYTES = 16 << 20;

/**
 * The binding of a document that is not laid out canonically, read with the strict grammar: null
 * when it is not an export's. The read stops at the first byte the grammar refuses (verify would
 * refuse the file too), and as soon as both members are known before the records array (a tool
 * that indents an export keeps them there), so a file that is not JSON costs a few bytes. Only a
 * document whose members come after its records is read to its end.
 */
async function strictBinding(exportPath: string): Promise<string | null> {
  const reader = new StrictJsonStream({ shape: BINDING_SHAPE, stream: new Map([["records", SKIP_SHAPE]]), maxTokenBytes: MAX_TOKEN_BYTES });
  try {
    for await (const chunk of readFileChunks(exportPath, 1 << 18)) {
      const events = reader.write(chunk);
      if (reader.failed !== null) return null;
      for (const event of events) {
        // Members before the array: a later duplicate or a broken document would make verify
        // refuse the file, and then keeping it is only the cautious side.
        const bound = event.type === "array_start" ? bindingOf(event.members) : null;
        if (bound !== null) return bound;
      }
    }
    return bindingOf(reader.end().value);
  } catch {
    // Not a strict JSON document (or unreadable): verify cannot take it for any manifest's pair either.
    return null;
  }
}

/** The manifest sha256 `root` binds to, when it is an export's top level. */
function bindingOf(root: unknown): string | null {
  if (!isPlainObject(root)) return null;
  const schema = root["manifest_schema"];
  const sha256 = root["manifest_sha256"];
  return typeof schema === "string" && MANIFEST_SCHEMAS.includes(schema) && Sha256Field.safeParse(sha256).success ? (sha256 as string) : null;
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
    `refusing to replace --export ${displayText(exportPath)}: it is the export of another manifest (manifest_sha256 ${bound}), ` +
      `not of --manifest ${displayText(manifestPath)}, and replacing it would leave that manifest without its export. ` +
      `Choose another --export, or delete ${displayText(exportPath)} yourself if no manifest needs it (for example one left by an interrupted run)`,
  );
}
