// `model pull`: downloads a pinned model (embedded-models.ts) so that a bad download never becomes the cached one:
// bytes go to a partial file, hashed as they arrive, renamed onto the target only with the pinned SHA-256 (after an
// fsync); a cut-off pull keeps its partial file for the next to resume with a Range request; bytes past the pinned
// size are refused, a stalled transfer is aborted, and a lock allows one pull at a time per model. A partial file that
// cannot be resumed (longer than the pinned size, answered 416 and not the pinned file, or answered 200 with the whole
// file by a server that ignores the Range) is discarded and the download starts over once, reported in the result (or in
// the error); a partial file is installed only with the pinned SHA-256. The model directory is created one level at a
// time (makeModelDir), so a path where mkdir can never succeed fails at once.
import { createHash, type Hash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, rename, rm, stat, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import lockfile from "proper-lockfile";
import { errnoCode, errorClassName, LittleCanaryError } from "../core/errors.js";
import { cachedModelPath, fileSha256, hashFile, type PinnedModel } from "./embedded-models.js";
import { causeChain, networkFailureCause, refusedAddress, unresolvedHost } from "./http-call.js";
import { displayText } from "../core/display-text.js";
import { parseUrl } from "../core/guards.js";

/** A pull that failed; the message says whether a later pull can resume it. */
export class ModelPullError extends LittleCanaryError {
  override readonly name = "ModelPullError";
}

/** What a pull needs. */
export interface PullModelOptions {
  readonly model: PinnedModel;
  /** The model cache directory (created when missing). */
  readonly dir: string;
  /** Download from here instead of the pinned URL (a mirror); the pinned SHA-256 still applies. */
  readonly url?: string;
  /** Called as bytes arrive: bytes on disk so far and the total, when known. */
  readonly onProgress?: (received: number, total: number | null) => void;
  /** Abort a transfer that delivers no byte for this long (default 60 s). */
  readonly idleTimeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Injected fetch (tests); defaults to the global fetch, which follows redirects. */
  readonly fetch?: typeof fetch;
}

/** What a pull did. */
export interface PullModelResult {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** Bytes of an earlier partial download that were kept (0 when it started from scratch). */
  readonly resumedFrom: number;
  /** The cached file was already there with the pinned hash; nothing was downloaded. */
  readonly alreadyPresent: boolean;
  /** An earlier pull's partial file that could not be resumed and was discarded before this pull started over, or null. */
  readonly discardedPartial: {
    /** Bytes the partial file held. */
    readonly bytes: number;
    /**
     * `longer_than_pinned`: more bytes than the pinned size; `wrong_sha256`: the server has no more bytes (HTTP 416) and
     * the partial file is as long as the model but not its SHA-256; `not_served`: the server has no bytes past it (416)
     * although the model is longer; `range_ignored`: the server ignored the resume request (Range) and sent the whole
     * file from byte 0 (HTTP 200), which was written in its place.
     */
    readonly code: "longer_than_pinned" | "wrong_sha256" | "not_served" | "range_ignored";
    /** The same in plain words, for the user. */
    readonly message: string;
  } | null;
}

type DiscardedPartial = NonNullable<PullModelResult["discardedPartial"]>;

/** The size of the file at `path`, or null when there is none. */
async function sizeOf(path: string): Promise<number | null> {
  return (await stat(path).catch(() => null))?.size ?? null;
}

/** `bytes START-END/TOTAL` → START, or null. */
function rangeStart(header: string | null): number | null {
  const match = header === null ? null : /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(header.trim());
  return match === null ? null : Number(match[1]);
}

/** The whole file's size as the answer declares it (Content-Range total, else Content-Length of a 200), or null. */
function declaredTotal(response: Response): number | null {
  if (response.status === 206) {
    const match = /\/(\d+)$/.exec(response.headers.get("content-range")?.trim() ?? "");
    return match === null ? null : Number(match[1]);
  }
  const length = response.headers.get("content-length");
  return response.status === 200 && length !== null && /^\d+$/.test(length.trim()) ? Number(length) : null;
}

/** Removes the partial file that cannot be resumed and says why (DiscardedPartial). */
async function discardPartial(partial: string, model: PinnedModel, bytes: number, code: DiscardedPartial["code"]): Promise<DiscardedPartial> {
  await rm(partial, { force: true });
  const what =
    code === "longer_than_pinned"
      ? `an earlier pull kept ${bytes} bytes of ${model.name}, more than its pinned ${model.size}`
      : code === "wrong_sha256"
        ? `an earlier pull kept ${bytes} bytes of ${model.name} and the server has no more (HTTP 416), but they do not hash to the pinned SHA-256`
        : code === "not_served"
          ? `the server has no bytes of ${model.name} past the ${bytes} an earlier pull kept (HTTP 416), though the model has ${model.size}`
          : `the server ignored the request to resume ${model.name} after the ${bytes} bytes an earlier pull kept and sent the whole file (HTTP 200, not 206)`;
  return { bytes, code, message: `${what}; that partial download was discarded and the download started over` };
}

/** The errno-style code of a failed file operation, or "error". */
const errnoOf = (error: unknown): string => errnoCode(error) ?? "error";

/** The refusal of a model directory that cannot be used, with why (`a file is in its way`, `cannot create a directory in /proc: ENOENT`). */
function unusableDir(dir: string, why: string, cause?: unknown): ModelPullError {
  const message = `cannot use the model directory ${displayText(dir)} (${why}): pass --model-dir a directory you can write`;
  return new ModelPullError("io", message, cause !== undefined ? { cause } : undefined);
}

/**
 * Creates `dir` and its missing parents one level at a time, from its nearest existing ancestor down. Not a recursive
 * mkdir: Node 20's retries forever where mkdir answers ENOENT although the parent exists (under /proc), and the pull
 * would hang, deaf to SIGTERM; here every mkdir is tried once and its failure names the directory it was made in.
 */
async function makeModelDir(dir: string): Promise<void> {
  const missing: string[] = [];
  // dirname reaches a fixed point at the root, which exists: the walk ends within the path's depth.
  for (let path = dir; ; path = dirname(path)) {
    const found = await stat(path).then(
      (stats) => ({ stats, code: null }),
      (error: unknown) => ({ stats: null, code: errnoOf(error), error }),
    );
    if (found.stats !== null) {
      if (!found.stats.isDirectory()) throw unusableDir(dir, "a file is in its way");
      break;
    }
    // ENOTDIR: a file is in the way of a parent.
    if (found.code === "ENOTDIR") throw unusableDir(dir, "a file is in its way", found.error);
    if (found.code !== "ENOENT" || dirname(path) === path) throw unusableDir(dir, `cannot look up ${displayText(path)}: ${found.code}`, found.error);
    missing.push(path);
  }
  for (const path of missing.reverse()) {
    try {
      await mkdir(path);
    } catch (error) {
      // Made meanwhile by another pull: fine when it is a directory.
      if (errnoOf(error) === "EEXIST" && (await stat(path).catch(() => null))?.isDirectory() === true) continue;
      const why = errnoOf(error) === "EEXIST" ? "a file is in its way" : `cannot create a directory in ${displayText(dirname(path))}: ${errnoOf(error)}`;
      throw unusableDir(dir, why, error);
    }
  }
}

/** Downloads `options.model` into `options.dir` (see the header); throws ModelPullError, `io` or `verification` (wrong bytes). */
export async function pullModel(options: PullModelOptions): Promise<PullModelResult> {
  const { model, dir } = options;
  const target = cachedModelPath(dir, model);
  const partial = join(dir, `.${model.file}.${model.sha256.slice(0, 16)}.partial`);
  await makeModelDir(dir);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(partial, { realpath: false, lockfilePath: `${partial}.lock`, stale: 30_000, update: 5_000 });
  } catch (error) {
    // ELOCKED: the lock is held; anything else (EACCES on a read-only directory) is the directory's.
    const why =
      errnoOf(error) === "ELOCKED"
        ? `another model pull of ${displayText(model.name)} is running in ${displayText(dir)}`
        : `cannot write in the model directory ${displayText(dir)} (${errnoOf(error)}): pass --model-dir a directory you can write`;
    throw new ModelPullError("io", why, { cause: error });
  }
  try {
    // What is at the model's path (a symlink to a shared copy is followed) is hashed only when it is
    // a regular file: a FIFO would hold the pull forever, /dev/zero never ends, a directory cannot be replaced.
    const existing = await stat(target).catch(() => null);
    if (existing !== null && !existing.isFile()) {
      const what = existing.isDirectory() ? "a directory" : "not a regular file";
      throw new ModelPullError("io", `the model's path ${displayText(target)} is ${what}: remove it, or pass --model-dir another directory`);
    }
    if (existing !== null && (await fileSha256(target)) === model.sha256) {
      return { path: target, sha256: model.sha256, bytes: (await sizeOf(target)) ?? 0, alreadyPresent: true, resumedFrom: 0, discardedPartial: null };
    }
    return await download(options, target, partial);
  } finally {
    await release().catch(() => undefined);
  }
}

async function download(options: PullModelOptions, target: string, partial: string): Promise<PullModelResult> {
  const { model } = options;
  const fetchFn = options.fetch ?? globalThis.fetch;
  // The partial file is ours by its name only: anything else at that name (a symlink planted in a
  // shared model directory) is removed, never read as a prefix or written through.
  const there = await lstat(partial).catch(() => null);
  if (there !== null && !there.isFile()) await unlink(partial);
  let offset = (await sizeOf(partial)) ?? 0;
  let discarded: DiscardedPartial | null = null;
  if (model.size !== null && offset > model.size) {
    discarded = await discardPartial(partial, model, offset, "longer_than_pinned");
    offset = 0;
  }
  let hash = createHash("sha256");
  if (offset > 0) await hashFile(partial, hash);
  let resumedFrom = offset;

  const controller = new AbortController();
  const idleMs = options.idleTimeoutMs ?? 60_000;
  let idle: NodeJS.Timeout | undefined;
  let stalled = false;
  const arm = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, idleMs);
  };
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const source = shownUrl(options.url ?? model.url);
  const interrupted = (received: number, cause?: unknown): ModelPullError => {
    // "no data for": true of a server that never accepted the connection as of one that accepted it and sent nothing.
    const failure = options.signal?.aborted === true || stalled ? null : failureOf(cause, options.url ?? model.url);
    const why = options.signal?.aborted === true ? "interrupted" : stalled ? `timeout: no data for ${idleMs / 1000}s` : (failure?.text ?? "");
    // A partial file exists only once bytes arrived (or one was kept from an earlier pull).
    const message =
      received > 0
        ? `the download of ${model.name} from ${source} was interrupted after ${received} bytes (${why}); the partial file is kept: run model pull again to resume it`
        : `the download of ${model.name} from ${source} failed (${why}); nothing was downloaded; ` +
          `fix: ${failure?.check ?? "check the network"}, or pass --from MIRROR (a copy of the file at another URL), ` +
          `or copy ${model.file} (SHA-256 ${model.sha256}) into the model directory ${JSON.stringify(options.dir)} by hand`;
    return new ModelPullError("io", message, cause !== undefined ? { cause } : undefined);
  };

  let file: FileHandle | null = null;
  let received = offset;
  // Bytes that are not the pinned ones are never kept, not even for a resume.
  const refuse = async (message: string): Promise<never> => {
    await file?.close();
    file = null;
    await rm(partial, { force: true });
    throw new ModelPullError("verification", message);
  };
  const request = async (from: number): Promise<Response> => {
    arm();
    try {
      return await fetchFn(options.url ?? model.url, { headers: from > 0 ? { range: `bytes=${from}-` } : {}, signal: controller.signal });
    } catch (error) {
      throw interrupted(received, error);
    }
  };
  try {
    let response = await request(offset);
    // 416 to a resume: the server has no bytes past the partial file. Either the partial file is the whole model (an
    // earlier pull stopped before its rename) and is installed below after the same hash check, or it can never be
    // resumed from this server and every later pull would get 416 again: it is discarded and the download starts over.
    const wholeLength = model.size === null || offset === model.size;
    if (offset > 0 && response.status === 416 && !(wholeLength && hash.copy().digest("hex") === model.sha256)) {
      await response.body?.cancel().catch(() => undefined);
      discarded = await discardPartial(partial, model, offset, wholeLength ? "wrong_sha256" : "not_served");
      hash = createHash("sha256");
      offset = 0;
      received = 0;
      resumedFrom = 0;
      // Without a Range this request cannot be answered as a resume again: the pull starts over once, never in a loop.
      response = await request(0);
    }
    const total = declaredTotal(response);
    const cancel = (): Promise<void> | undefined => response.body?.cancel().catch(() => undefined);
    if (model.size !== null && total !== null && total !== model.size) {
      await cancel();
      // Nothing of this answer was written: an earlier pull's partial file is the server's fault
      // neither, so it is kept for a pull from the right server to resume (a wrong --from URL
      // must not cost the bytes already fetched).
      const kept = offset > 0 ? `; the ${offset} bytes an earlier pull kept are left for the next pull to resume` : "";
      throw new ModelPullError("verification", `the server offers ${total} bytes for ${model.name}, not its pinned ${model.size}; nothing was cached${kept}`);
    }
    let digest: Hash = hash;
    if (offset > 0 && response.status === 416) {
      // The partial file holds the whole model (its hash was checked above and is checked again below): only the rename is left.
      await cancel();
    } else if (response.status === 206 && offset > 0 && rangeStart(response.headers.get("content-range")) === offset) {
      file = await open(partial, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    } else if (response.status === 200) {
      // No range asked, or a server that ignores it: the whole file comes again, and the partial file is the user's bytes thrown away.
      if (offset > 0) discarded = await discardPartial(partial, model, offset, "range_ignored");
      digest = offset > 0 ? createHash("sha256") : hash;
      received = 0;
      resumedFrom = 0;
      file = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
    } else {
      await cancel();
      // The URL that answered: the redirect's target when there was one (response.url is empty from a fetch that does not set it).
      const answered = response.url !== "" ? shownUrl(response.url) : source;
      throw new ModelPullError("io", `the model server at ${answered} answered HTTP ${response.status} for ${model.name}; nothing was cached`);
    }
    if (file !== null && response.body !== null) {
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          arm();
          received += chunk.byteLength;
          if (model.size !== null && received > model.size) {
            await refuse(`the download of ${model.name} is larger than its pinned ${model.size} bytes; nothing was cached`);
          }
          await file.write(chunk);
          digest.update(chunk);
          options.onProgress?.(received, model.size);
        }
      } catch (error) {
        if (error instanceof ModelPullError) throw error;
        throw interrupted(received, error);
      }
    }
    if (model.size !== null && received < model.size) throw interrupted(received);
    const actual = digest.digest("hex");
    if (actual !== model.sha256) {
      await refuse(`the downloaded file's SHA-256 is ${actual}, not the pinned ${model.sha256}; nothing was cached`);
    }
    if (file !== null) {
      await file.sync();
      await file.close();
      file = null;
    }
    await rename(partial, target);
    await syncDir(options.dir);
    return { path: target, sha256: actual, bytes: received, resumedFrom, alreadyPresent: false, discardedPartial: discarded };
  } catch (error) {
    // A pull that discarded the user's partial file says so even when it then fails, in the order it happened.
    if (discarded !== null && error instanceof ModelPullError)
      throw new ModelPullError(error.code, `${discarded.message}; then ${error.message}`, { cause: error });
    throw error;
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener("abort", onAbort);
    await file?.close().catch(() => undefined);
  }
}

/** The download URL as shown: scheme, host and path (no query: a mirror's may hold a token), JSON-quoted when odd. */
function shownUrl(raw: string): string {
  const url = parseUrl(raw);
  const shown = url === null ? null : `${url.origin}${url.pathname}`;
  if (shown === null) return "<invalid URL>";
  return /^[\x21-\x7e]+$/.test(shown) ? shown : JSON.stringify(shown);
}

/**
 * Why a transfer failed, in fixed words: the network cause (else the error's class) and the first plain `code` on its
 * cause chain (`DNS failure, ENOTFOUND`), then where it failed when the socket error says so (the host a DNS lookup did
 * not find, the address nothing listens at: after a redirect that is not the URL the user gave); and what to check first.
 */
function failureOf(error: unknown, requested: string): { readonly text: string; readonly check: string } {
  if (error === undefined) return { text: "the server closed the transfer early", check: "check the network" };
  const codes = [...causeChain(error)].map((current) => (current as { code?: unknown }).code);
  const code = codes.find((c): c is string => typeof c === "string" && /^[A-Z][A-Z0-9_]{1,63}$/.test(c));
  const cause = networkFailureCause(error) ?? errorClassName(error);
  const text = code === undefined ? cause : `${cause}, ${code}`;
  const refused = cause === "connection refused" ? refusedAddress(error) : null;
  if (refused !== null) {
    return { text: `${text}: nothing is listening at ${refused}`, check: `check that the server at ${refused} is running and that the port is right` };
  }
  const host = cause === "DNS failure" ? unresolvedHost(error) : null;
  if (host !== null) {
    // A host other than the one requested is a redirect's target.
    const redirected = host.toLowerCase() !== parseUrl(requested)?.hostname.toLowerCase() ? ", where the download was redirected" : "";
    const shown = displayText(host);
    return { text: `${text}: no address found for ${shown}${redirected}`, check: `check the host name ${shown} and the network` };
  }
  return { text, check: "check the network" };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r").catch(() => null);
  if (handle === null) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}
