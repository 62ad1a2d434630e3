// `buildShardIndex`, behind `little-canary index`. It lives in the verb layer, above both verify/
// and publish/, so that the read-only `little-canary/verify` entry never loads the writer.
import { dirname, resolve } from "node:path";
import { canonicalJson } from "../core/canonical.js";
import { fileIdentity, sameFile } from "../core/file-identity.js";
import { errnoCode, LittleCanaryError, UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { isPlainObject, refuseUnknownOptions } from "../core/guards.js";
import { MAX_DOCUMENT_BYTES, parseJsonDocument } from "../core/read-document.js";
import { refuseToReplaceOtherFile } from "../core/replace-guard.js";
import { quotedText } from "../core/display-text.js";
import { INDEX_SCHEMA, IngestIndexSchema, type IngestIndex } from "../documents/ingest-index.js";
import { writeFileAtomic } from "../publish/atomic-write.js";
import type { PublishFs } from "../publish/fs.js";
import { displayPath } from "../verify/shard-index.js";
import { examineShards, type ShardIndexProblem, type ShardPair } from "../verify/shard-pairs.js";
import { cwdOption, pathOption } from "../verify/option-checks.js";

/** Splits `MANIFEST:EXPORT` at its one colon (a path with a colon cannot be told apart); throws UsageError otherwise. */
export function parseShardPairArgument(argument: string): { manifest: string; export: string } {
  const parts = argument.split(":");
  const [manifest, exported] = parts;
  const shown = quotedText(argument);
  if (parts.length < 2) throw new UsageError(`index: argument ${shown} must be MANIFEST:EXPORT (a manifest path, a colon, its export path)`);
  if (parts.length > 2) throw new UsageError(`index: argument ${shown} has more than one ':'; MANIFEST:EXPORT paths cannot contain a colon`);
  if (manifest === undefined || manifest === "" || exported === undefined || exported === "") {
    throw new UsageError(`index: argument ${shown} needs both a manifest path and an export path around its ':'`);
  }
  return { manifest, export: exported };
}

/** Options of `buildShardIndex`. */
export interface BuildShardIndexOptions {
  /** Where the index is written, atomically; an existing file there is replaced only when it is an index. */
  readonly out: string;
  /** Every shard's pair, in any order: `MANIFEST:EXPORT`, or the two paths. */
  readonly pairs: readonly (string | { readonly manifest: string; readonly export: string })[];
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /** File system for the atomic write (tests inject faults here). */
  readonly fs?: PublishFs;
}

/** Every option buildShardIndex takes; `satisfies` keeps the list equal to the interface. */
const BUILD_SHARD_INDEX_OPTION_KEYS = Object.keys({ out: true, pairs: true, cwd: true, fs: true } satisfies Record<keyof BuildShardIndexOptions, true>);

/** What `buildShardIndex` did: the index written, or every problem found (nothing written). */
export interface BuildShardIndexResult {
  /** True when the index was written: every pair verified and the shards tile the input. */
  readonly written: boolean;
  /** False when a file could not be read. */
  readonly readable: boolean;
  /** The index file (resolved). */
  readonly indexPath: string;
  /** SHA-256 of the index file's bytes, when written: the value to pin. */
  readonly indexSha256: string | null;
  readonly index: IngestIndex | null;
  /** Every problem, pair by pair; empty when written. */
  readonly problems: ShardIndexProblem[];
}

/**
 * An existing `--out` is replaced only when it is an index, so a slip of the argument cannot
 * overwrite the input, a manifest or any other file: a symlink, a directory and a file that
 * cannot be read are refused too. An empty file holds nothing to lose (`--out "$(mktemp)"`).
 */
async function refuseToReplaceOther(indexPath: string, shown: string): Promise<void> {
  await refuseToReplaceOtherFile(indexPath, {
    flag: "index: --out",
    shownPath: displayPath(shown),
    what: `a ${INDEX_SCHEMA} document`,
    // The whole document is read and parsed, as verify reads an index.
    headBytes: MAX_DOCUMENT_BYTES,
    isEarlierOutput: (bytes, whole) => whole && isIndexDocument(bytes),
    // A larger file is no index verify could read: refused unread (the input named as --out by mistake).
    wholeOnly: true,
    unreadable: "refuse",
    notAFile: "refuse",
  });
}

/** Whether `bytes` are a strict JSON object whose `schema` is the index's. */
function isIndexDocument(bytes: Buffer): boolean {
  try {
    const { value } = parseJsonDocument(bytes, "index");
    return isPlainObject(value) && value["schema"] === INDEX_SCHEMA;
  } catch {
    return false;
  }
}

/**
 * Verifies every shard's pair and that the shards (one input, shard count, policy and canary
 * identity) tile the input exactly once, then writes the canonical index to `out` atomically; with
 * any problem nothing is written and every problem is returned. Throws UsageError for an invalid
 * argument, LittleCanaryError("publish") when the index cannot be written.
 */
export async function buildShardIndex(options: BuildShardIndexOptions): Promise<BuildShardIndexResult> {
  // A misspelt option (`overwrit`) is refused, never ignored.
  refuseUnknownOptions("buildShardIndex", options, BUILD_SHARD_INDEX_OPTION_KEYS);
  pathOption("out", options.out);
  cwdOption(options.cwd);
  if (!Array.isArray(options.pairs)) throw new UsageError("pairs must be an array of MANIFEST:EXPORT strings or { manifest, export } objects");
  for (const [position, pair] of options.pairs.entries()) {
    if (typeof pair === "string") continue;
    if (
      !isPlainObject(pair) ||
      typeof pair["manifest"] !== "string" ||
      typeof pair["export"] !== "string" ||
      pair["manifest"] === "" ||
      pair["export"] === ""
    ) {
      throw new UsageError(`pairs[${position}] must be a MANIFEST:EXPORT string or { manifest, export } with two non-empty paths`);
    }
  }
  const cwd = options.cwd ?? process.cwd();
  if (options.pairs.length === 0) throw new UsageError("index: give at least one MANIFEST:EXPORT pair");
  const indexPath = resolve(cwd, options.out);
  const pairs: ShardPair[] = options.pairs.map((argument) => {
    const named = typeof argument === "string" ? parseShardPairArgument(argument) : argument;
    return { ...named, manifest: displayPath(named.manifest), manifestPath: resolve(cwd, named.manifest), exportPath: resolve(cwd, named.export), pins: null };
  });
  // By identity: an --out that is a symlink or a hard link to a shard's file is that file too.
  const out = await fileIdentity(indexPath);
  for (const pair of pairs) {
    for (const path of [pair.manifestPath, pair.exportPath]) {
      if (sameFile(out, await fileIdentity(path))) throw new UsageError(`index: --out ${displayPath(options.out)} names a shard's file`);
    }
  }
  await refuseToReplaceOther(indexPath, options.out);
  const examined = await examineShards(pairs, dirname(indexPath));
  if (examined.document === null) {
    return { written: false, readable: examined.readable, indexPath, indexSha256: null, index: null, problems: examined.problems };
  }
  const json = canonicalJson(IngestIndexSchema, examined.document);
  try {
    await writeFileAtomic(indexPath, json, options.fs ? { fs: options.fs } : {});
  } catch (error) {
    const code = errnoCode(error);
    const reason = code === null ? "" : ` (${code})`;
    throw new LittleCanaryError("publish", `could not write the index ${displayPath(options.out)}${reason}; no index written`, { cause: error });
  }
  return { written: true, readable: true, indexPath, indexSha256: sha256Hex(json), index: examined.document, problems: [] };
}
