// `verify`: the library call behind `little-canary verify`, for one pair or a sharded run's index.
// Refusals name the CLI's flags, since this is what the CLI calls; problems are data.
import { UsageError } from "../core/errors.js";
import { displayPath, verifyShardIndex } from "../verify/shard-index.js";
import { verifyFiles } from "../verify/verify-files.js";

/** Options of `verify`: the pair's (`manifest`, ...) or the index's (`index`, ...), never both. */
export interface VerifyVerbOptions {
  /** The manifest of one pair. */
  readonly manifest?: string;
  /** Its export; omit to check the manifest alone. */
  readonly export?: string;
  /** The manifest's SHA-256 as pinned out of band. */
  readonly expectManifestSha256?: string;
  /** Instead of one pair: the index of a sharded run, and every pair it lists. */
  readonly index?: string;
  /** With `index`: the index's SHA-256 as pinned out of band. */
  readonly expectIndexSha256?: string;
  /** One pair only: a record admitted by an ingest allowlist is a problem. */
  readonly refuseAllowlisted?: boolean;
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /** Hears how far reading got: bytes of the files read, of their total (see `verifyFiles`). */
  readonly onProgress?: (read: number, total: number) => void;
  /**
   * Hears that a pair is read again by the strict reader (see `verifyFiles`), with its manifest's
   * path as given or as the index lists it (JSON-quoted; shown only when printable) and its bytes.
   */
  readonly onStrictRead?: (manifest: string, totalBytes: number) => void;
}

/** Verifies one pair or a sharded run's index (see `verifyFiles` and `verifyShardIndex`); refuses (UsageError) options that mix a pair's and an index's. */
export async function verify(options: VerifyVerbOptions) {
  // An empty path is refused in the flag's own words, not the library option's.
  for (const [flag, value] of [
    ["--manifest", options.manifest],
    ["--export", options.export],
    ["--index", options.index],
  ] as const) {
    if (value === "") throw new UsageError(`${flag} must not be empty`);
  }
  if (options.index !== undefined || options.expectIndexSha256 !== undefined) {
    // Never silently ignored: an index run does not apply it to the pairs it lists.
    if (options.refuseAllowlisted === true) throw new UsageError("--no-allowlisted checks one pair (--manifest): it is not supported with --index");
    if (options.index === undefined) throw new UsageError("--expect-index-sha256 needs --index");
    if (options.manifest !== undefined || options.export !== undefined || options.expectManifestSha256 !== undefined) {
      throw new UsageError("--index checks every pair it lists: do not combine it with --manifest, --export or --expect-manifest-sha256");
    }
    return {
      kind: "index" as const,
      result: await verifyShardIndex({
        index: options.index,
        expectIndexSha256: options.expectIndexSha256 ?? null,
        pinName: "--expect-index-sha256",
        cwd: options.cwd ?? process.cwd(),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        ...(options.onStrictRead === undefined ? {} : { onStrictRead: options.onStrictRead }),
      }),
    };
  }
  const manifest = options.manifest;
  if (manifest === undefined) throw new UsageError("verify needs --manifest (one pair) or --index (a sharded run's index)");
  const result = await verifyFiles({
    manifest,
    export: options.export ?? null,
    expectManifestSha256: options.expectManifestSha256 ?? null,
    pinName: "--expect-manifest-sha256",
    cwd: options.cwd ?? process.cwd(),
    refuseAllowlisted: options.refuseAllowlisted === true,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.onStrictRead === undefined ? {} : { onStrictRead: (total: number) => options.onStrictRead?.(displayPath(manifest), total) }),
  });
  return { kind: "pair" as const, result };
}
