// `verifyExport` and `verifyManifestOnly`: documents passed in memory (as values, or as the bytes
// read, which are parsed strictly), checked by the one verifier (verify-stream.ts) with the
// records arrays as its sources. They return the problem list ([] = consistent) and never throw:
// wrong types, huge numbers, deep nesting and non-object items all become problems.
import { sha256Hex } from "../core/hash.js";
import { allowlistedAdmissions, failureProblem, ProblemList, refuseAllowlisted, type VerifyProblem } from "./problems.js";
import { MAX_DOCUMENT_VALUES, parseJsonDocument, readFailureMessage, type DocumentLabel } from "../core/read-document.js";
import type { ManifestFileSha } from "./pair-checks.js";
import { headOf, NO_EXPORT, verifyHeld } from "./verify-stream.js";
import { ARGUMENT_WORDING, MANIFEST_ONLY_WORDING, swappedDocuments } from "./swapped.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { flagOption } from "./option-checks.js";

/** What a refusal of an unknown option adds: the pin a caller may have meant is verifyFiles's. */
const PIN_NOTE = " (to pin the manifest, use verifyFiles with expectManifestSha256, or compare the SHA-256 of its bytes yourself)";

/** Options of `verifyExport` and `verifyManifestOnly`. */
export interface VerifyOptions {
  /**
   * The manifest file's bytes as read; they must be its canonical serialization. Not needed
   * when the manifest itself is passed as bytes.
   */
  readonly manifestBytes?: Uint8Array | string;
  /**
   * Treat a record admitted by an ingest allowlist (`admission_basis: "allowlist"`) as a problem
   * (`allowlisted_admission`), for consumers who accept only records nothing was detected in.
   */
  readonly refuseAllowlisted?: boolean;
}

/** Every option of VerifyOptions; `satisfies` keeps the list equal to the interface. */
const VERIFY_OPTION_KEYS = Object.keys({ manifestBytes: true, refuseAllowlisted: true } satisfies Record<keyof VerifyOptions, true>);

/** The SHA-256 of the manifest's bytes as given (see ManifestFileSha): `manifestBytes`, or the manifest passed as bytes or text. */
function fileShaFrom(options: VerifyOptions | undefined, manifestDoc: unknown): ManifestFileSha {
  const bytes: unknown = options?.manifestBytes ?? (manifestDoc instanceof Uint8Array || typeof manifestDoc === "string" ? manifestDoc : undefined);
  if (bytes === undefined) return undefined;
  try {
    return bytes instanceof Uint8Array || typeof bytes === "string" ? sha256Hex(bytes) : null;
  } catch {
    // A string with a lone surrogate has no UTF-8 form.
    return null;
  }
}

/** A document passed as bytes is parsed strictly; a read failure becomes a `*_unreadable` problem. */
function documentValue(doc: unknown, label: DocumentLabel, problems: ProblemList): { value: unknown } | null {
  // A string is a document's text (a file read as UTF-8), never a parsed document: neither
  // document can be a JSON string, so reading it as text cannot hide a valid pair.
  const bytes = typeof doc === "string" ? new TextEncoder().encode(doc) : doc;
  if (!(bytes instanceof Uint8Array)) {
    // A value built in code is refused before any check walks it when no JSON text could have
    // made it: a sparse array of length 2^32 - 1 took two minutes to walk, and one of 2^24 nested
    // in a record ran the process out of memory.
    const why = notFromJsonText(doc);
    if (why === null) return { value: doc };
    problems.add(label === "manifest" ? "manifest_unreadable" : "export_unreadable", `cannot read ${label} (${why})`);
    return null;
  }
  try {
    return { value: parseJsonDocument(bytes, label).value };
  } catch (error) {
    problems.add(label === "manifest" ? "manifest_unreadable" : "export_unreadable", readFailureMessage(error, label));
    return null;
  }
}

/**
 * Why a document passed as a value could not have been read from JSON text, in a way that would
 * make the checks walk what is not there, or null: an array with a hole (a sparse array, which
 * no JSON text makes; the walk stops at the first hole), or one longer than the values a
 * document read from bytes may hold (MAX_DOCUMENT_VALUES). Nothing else is capped: the values
 * are the caller's, already in memory. Each object is walked once, so a cycle ends the walk.
 */
function notFromJsonText(root: unknown): string | null {
  const seen = new Set<object>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      if (node.length > MAX_DOCUMENT_VALUES)
        return `an array of ${node.length} elements: more than the ${MAX_DOCUMENT_VALUES} JSON values verify holds of a document`;
      for (let i = 0; i < node.length; i++) {
        if (!(i in node)) return "an array with holes (a sparse array), which no JSON text makes";
        pending.push(node[i]);
      }
      continue;
    }
    for (const key in node) if (Object.hasOwn(node, key)) pending.push((node as Record<string, unknown>)[key]);
  }
  return null;
}

/**
 * Problems that make an export inconsistent with its manifest ([] = consistent). Never throws for
 * any document; an option it does not know (a misspelt `refuseAllowlisted`, or a pin, which only
 * `verifyFiles` takes) is a UsageError, as a silently ignored one would check less than asked.
 * Pass each document as the bytes you read (a Uint8Array) when you can: bytes are parsed
 * strictly, so an export record with two `text` keys is refused (`export_unreadable`), where a
 * value from `JSON.parse` silently keeps the last one. A string is taken as the document's text
 * and parsed strictly too (bytes are better: decoding has already replaced invalid UTF-8). With
 * `manifestBytes` (or a manifest passed as bytes or text), the manifest file must be
 * byte-for-byte its canonical form. For files on disk, `verifyFiles` does all of this.
 */
export function verifyExport(exportDoc: unknown, manifestDoc: unknown, options: VerifyOptions = {}): VerifyProblem[] {
  refuseUnknownOptions(exportDoc === NO_EXPORT ? "verifyManifestOnly" : "verifyExport", options, VERIFY_OPTION_KEYS, PIN_NOTE);
  flagOption("refuseAllowlisted", options.refuseAllowlisted);
  const problems = new ProblemList();
  try {
    const exported = documentValue(exportDoc, "export", problems);
    const manifest = documentValue(manifestDoc, "manifest", problems);
    if (exported === null || manifest === null) return problems.items;
    // Documents passed the wrong way round verify nothing: the one problem says what to fix.
    const exportGiven = exportDoc !== NO_EXPORT;
    const swapped = swappedDocuments(
      headOf(manifest.value),
      exportGiven ? headOf(exported.value) : null,
      exportGiven,
      exportGiven ? ARGUMENT_WORDING : MANIFEST_ONLY_WORDING,
    );
    if (swapped !== null) return [swapped];
    problems.addAll(verifyHeld(exported.value, manifest.value, fileShaFrom(options, manifestDoc)));
    refuseAllowlisted(options.refuseAllowlisted, allowlistedAdmissions(manifest.value), problems.items);
  } catch (error) {
    problems.items.push(failureProblem(error));
  }
  return problems.items;
}

/**
 * Problems of a manifest checked without its export (`verify --manifest M`): internal
 * consistency, plus `export_missing` when the manifest records that an export was produced.
 * The manifest may be passed as the bytes read (parsed strictly, as in `verifyExport`).
 */
export function verifyManifestOnly(manifestDoc: unknown, options: VerifyOptions = {}): VerifyProblem[] {
  // The same path as a pair: NO_EXPORT is neither bytes nor text, so it passes `documentValue` as is.
  return verifyExport(NO_EXPORT, manifestDoc, options);
}
