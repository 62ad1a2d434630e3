// The publication lock: one `proper-lockfile` lock per target path, the export's too (two runs
// with different manifests but one export could otherwise remove the export the other just
// published), so two runs on the same files cannot interleave pre-flight, deletions and links.
// A target may not exist yet: each lock is `<target>.lock` (an atomic mkdir) on the canonical
// path; the holder refreshes its mtime, and a lock older than STALE_LOCK_MS belonged to a dead
// process and is taken over. Locks are taken in sorted path order, so two waiting runs never
// deadlock. A lock compromised while held is recorded, never thrown from a timer: publication
// checks `compromised` before it commits and rolls back.
import { basename, dirname, join, resolve } from "node:path";
import { stat } from "node:fs/promises";
import { setTimeout } from "node:timers/promises";
import lockfile from "proper-lockfile";
import { errorCode } from "../core/errors.js";
import { PublishError } from "./targets.js";
import { displayText } from "../core/display-text.js";
import { canonicalPath } from "../core/file-identity.js";

/** A holder refreshes its lock every STALE_LOCK_MS / 2; this long without a refresh = dead. */
export const STALE_LOCK_MS = 20_000;
const RETRY_INTERVAL_MS = 250;

/** A held publication lock; release it when done. */
export interface PublicationLock {
  readonly lockPath: string;
  /** Set when the lock was lost while held; publication must not commit after that. */
  readonly compromised: Error | null;
  /** Idempotent; never throws (a lock that cannot be removed goes stale and is recovered). */
  release(): Promise<void>;
  /**
   * Whether another run has taken this lock over while it was held: it was reported lost, or its
   * directory is gone or is not the one this run made (a run that made no progress for
   * STALE_LOCK_MS, suspended say, is taken over by the next). Asked when a held run fails, so the
   * failure can say why its files vanished; never throws.
   */
  takenOver(): Promise<boolean>;
}

export interface LockOptions {
  /** How long to wait for a lock held by another run; 0 (default) fails at once. */
  readonly waitSeconds?: number;
  /** Stops waiting (an interrupted run must not sit in the wait loop). */
  readonly signal?: AbortSignal;
  /** The flag that named the path, for a refusal that names its directory (default `--manifest`). */
  readonly flag?: string;
  /** Told once, with a sentence to show, when the lock is held by another run and the wait begins. */
  readonly onWait?: (message: string) => void;
  /**
   * When the wait ends (`Date.now()` milliseconds), if it began before this lock was asked for:
   * a run taking several locks waits `waitSeconds` for all of them, not for each.
   */
  readonly deadline?: number;
}

export function lockPathFor(manifestPath: string): string {
  return `${manifestPath}.lock`;
}

/** Locks one path; `manifestPath` should be canonical (see lockTargets), so aliases share one lock. */
export async function acquirePublicationLock(manifestPath: string, options: LockOptions = {}): Promise<PublicationLock> {
  const waitSeconds = options.waitSeconds ?? 0;
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw new PublishError("--wait-lock must be a finite number of seconds >= 0");
  const lockPath = lockPathFor(manifestPath);
  const deadline = options.deadline ?? Date.now() + waitSeconds * 1000;
  let compromised: Error | null = null;
  let waiting = false;
  for (;;) {
    try {
      const unlock = await lockfile.lock(manifestPath, {
        realpath: false,
        lockfilePath: lockPath,
        stale: STALE_LOCK_MS,
        retries: 0,
        onCompromised: (error) => {
          compromised = error;
        },
      });
      let released = false;
      // The lock directory this run made: one made by another run after a takeover is another
      // inode, or (an inode is reused at once) one born later, where the file system records births.
      const made = await stat(lockPath).catch(() => null);
      return {
        lockPath,
        get compromised() {
          return compromised;
        },
        async takenOver() {
          if (compromised !== null) return true;
          const now = await stat(lockPath).catch(() => null);
          return made !== null && (now === null || now.ino !== made.ino || now.dev !== made.dev || now.birthtimeMs !== made.birthtimeMs);
        },
        async release() {
          if (released) return;
          released = true;
          try {
            await unlock();
          } catch {
            // Already compromised or removed: nothing of ours is left to remove.
          }
        },
      };
    } catch (error) {
      const code = errorCode(error);
      if (code === "ELOCKED") {
        if (options.signal?.aborted) throw new PublishError("interrupted while waiting for the publication lock", { cause: error });
        if (Date.now() < deadline) {
          // A wait in silence reads as a hang: say once what it waits for, and that a dead holder's lock ends.
          if (!waiting) {
            waiting = true;
            options.onWait?.(
              `waiting up to ${waitSeconds} s for the publication lock ${displayText(lockPath)}, held by another run (a lock left by a killed run is taken over ${STALE_LOCK_MS / 1000} s after its last refresh)`,
            );
          }
          await setTimeout(Math.min(RETRY_INTERVAL_MS, Math.max(1, deadline - Date.now())));
          continue;
        }
        throw new PublishError(
          `another run is publishing to ${displayText(manifestPath)} (lock ${displayText(lockPath)} is held)` +
            (waitSeconds > 0 ? `; still held after waiting ${waitSeconds}s` : "; retry later or pass --wait-lock SECONDS") +
            // A kill -9 leaves the lock behind: say that it is not forever, so nobody deletes it by hand.
            ` (a lock left by a killed run is taken over ${STALE_LOCK_MS / 1000} s after its last refresh)`,
          { cause: error },
        );
      }
      if (code === "ENOENT" || code === "ENOTDIR") {
        // Same message as the directory check, so a missing directory reads the same either way. A
        // directory that exists but where nothing can be created (/proc answers ENOENT) says so.
        const exists = code === "ENOENT" && (await stat(dirname(manifestPath)).catch(() => null))?.isDirectory() === true;
        const what = code === "ENOTDIR" ? "is not a directory" : exists ? "does not take new files (ENOENT)" : "does not exist";
        throw new PublishError(`${options.flag ?? "--manifest"} directory ${what}: ${displayText(dirname(manifestPath))}`, { cause: error });
      }
      if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
        // The lock is the first thing written beside the target: say it is the directory that refused.
        throw new PublishError(`${options.flag ?? "--manifest"} directory is not writable: ${displayText(dirname(manifestPath))} (${code})`, { cause: error });
      }
      throw new PublishError(`could not lock ${displayText(manifestPath)} (${code ?? "unknown error"})`, { cause: error });
    }
  }
}

/**
 * Locks the manifest path and the export path as one lock, each named after the file's name in its
 * canonical directory (so aliases share one lock), in sorted order, duplicates once; releases all on failure.
 */
export async function lockTargets(
  targets: { readonly manifestPath: string; readonly exportPath?: string | null },
  waitSeconds: number,
  signal?: AbortSignal,
  onWait?: (message: string) => void,
): Promise<PublicationLock> {
  const paths: Array<[string, string]> = [
    ["--manifest", targets.manifestPath],
    ...(targets.exportPath == null ? [] : [["--export", targets.exportPath] as [string, string]]),
  ];
  const canonical = (path: string) => canonicalPath(dirname(resolve(path))).then((directory) => join(directory, basename(resolve(path))));
  // Each canonical path once, with the flag that first named it (for a refusal naming its directory).
  const flagOf = new Map<string, string>();
  for (const [flag, path] of paths) {
    const key = await canonical(path);
    if (!flagOf.has(key)) flagOf.set(key, flag);
  }
  const ordered = [...flagOf.keys()].sort();
  // One notice for the run, however many of its locks it waits for.
  let told = false;
  const tellOnce =
    onWait === undefined
      ? undefined
      : (message: string): void => {
          if (!told) onWait(message);
          told = true;
        };
  const held: PublicationLock[] = [];
  // One wait for the run: a second lock still held gets what the first one's wait left, not as long again.
  const deadline = Date.now() + waitSeconds * 1000;
  try {
    for (const path of ordered) {
      held.push(
        await acquirePublicationLock(path, {
          waitSeconds,
          deadline,
          ...(signal ? { signal } : {}),
          ...(tellOnce ? { onWait: tellOnce } : {}),
          flag: flagOf.get(path) as string,
        }),
      );
    }
  } catch (error) {
    for (const lock of held.reverse()) await lock.release();
    throw error;
  }
  return {
    lockPath: held.map((lock) => lock.lockPath).join(", "),
    get compromised() {
      return held.find((lock) => lock.compromised !== null)?.compromised ?? null;
    },
    async release() {
      for (const lock of [...held].reverse()) await lock.release();
    },
    async takenOver() {
      for (const lock of held) if (await lock.takenOver()) return true;
      return false;
    },
  };
}

/**
 * The error of a run that failed after another run took its lock over: the other run removed
 * this run's scratch files as a killed run's leftovers, so the failure itself (a scratch file
 * not found) would not say why. `failure` is kept as the cause and its words are repeated.
 */
export function lockTakenOverError(lock: PublicationLock, failure: unknown): PublishError {
  const words = failure instanceof Error ? failure.message : String(failure);
  return new PublishError(
    `another run took over the publication lock ${displayText(lock.lockPath)} while this run held it ` +
      `(a run that makes no progress for ${STALE_LOCK_MS / 1000} s, one suspended with Ctrl-Z or SIGSTOP for example, loses its lock to the next run), so this run stopped: ${words}`,
    { cause: failure },
  );
}
