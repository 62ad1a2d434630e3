// Documents given the wrong way round: an export where the manifest belongs (the two swapped, or
// the export given alone), or a manifest where the export belongs. Nothing can be verified then,
// and a list of schema problems would hide the one thing to fix, so the one problem says it
// plainly, in the words of the caller: flags for the CLI and `verifyFiles`, argument positions
// for `verifyExport`.
import { isExportSchemaName, MANIFEST_SCHEMAS } from "../documents/manifest-v2.js";
import { own, type Obj } from "./_values.js";
import type { VerifyProblem } from "./problems.js";

/** How a message names the two documents and says what to do. */
export interface SwapWording {
  /** The document given as the manifest ("the file given as the manifest"). */
  readonly manifest: string;
  /** The document given as the export. */
  readonly export: string;
  /** How to give them the right way round. */
  readonly swap: string;
  /** What to do with an export given as the manifest (and no manifest given as the export). */
  readonly giveManifest: string;
  /** What to do when a manifest was given as the export beside a manifest. */
  readonly giveExport: string;
}

/** The words of `verify --manifest M --export E` (and of `verifyFiles`, whose options are named alike). */
export const FILE_WORDING: SwapWording = {
  manifest: "the file given as the manifest",
  export: "the file given as the export",
  swap: "swap them (--manifest MANIFEST --export EXPORT)",
  giveManifest: "give the manifest with --manifest and this file with --export",
  giveExport: "give the export that ingest wrote beside this manifest with --export",
};

/** The words of `verifyExport(exportDoc, manifestDoc)`. */
export const ARGUMENT_WORDING: SwapWording = {
  manifest: "verifyExport's second argument (the manifest)",
  export: "its first argument (the export)",
  swap: "swap them: verifyExport(exportDoc, manifestDoc)",
  giveManifest: "pass the export first and its manifest second: verifyExport(exportDoc, manifestDoc)",
  giveExport: "pass the export that ingest wrote beside this manifest first",
};

/** The words of `verifyManifestOnly(manifestDoc)`. */
export const MANIFEST_ONLY_WORDING: SwapWording = {
  manifest: "verifyManifestOnly's argument",
  export: "the export",
  swap: "pass the manifest",
  giveManifest: "pass the manifest, or check the pair with verifyExport(exportDoc, manifestDoc)",
  giveExport: "pass the manifest",
};

/**
 * The one problem of documents given the wrong way round, or null: `manifest_is_export` when the
 * document given as the manifest is an export, `export_is_manifest` when both are manifests.
 * `manifestHead` and `exportHead` are each document's members other than its records (null when
 * it is not an object); `exportGiven` is false for a manifest checked alone.
 */
export function swappedDocuments(manifestHead: Obj | null, exportHead: Obj | null, exportGiven: boolean, words: SwapWording): VerifyProblem | null {
  const named = manifestHead === null ? undefined : own(manifestHead, "schema");
  if (manifestHead === null || !isExportSchemaName(named)) return exportIsManifest(manifestHead, exportHead, words);
  const message =
    exportGiven && exportHead !== null && MANIFEST_SCHEMAS.includes(own(exportHead, "schema") as string)
      ? `${words.manifest} looks like an export and ${words.export} like a manifest: ${words.swap}`
      : `${words.manifest} looks like an export (${String(named)}), not a manifest: ${words.giveManifest}`;
  return { code: "manifest_is_export", message };
}

/** Both documents are manifests (the same file given twice, or two manifests): there is no export to check. Null otherwise. */
function exportIsManifest(manifestHead: Obj | null, exportHead: Obj | null, words: SwapWording): VerifyProblem | null {
  const manifestSchema = manifestHead === null ? undefined : own(manifestHead, "schema");
  const exportSchema = exportHead === null ? undefined : own(exportHead, "schema");
  if (typeof exportSchema !== "string" || !MANIFEST_SCHEMAS.includes(exportSchema) || !MANIFEST_SCHEMAS.includes(manifestSchema as string)) return null;
  return { code: "export_is_manifest", message: `${words.export} is a manifest (${exportSchema}), not an export: ${words.giveExport}` };
}
