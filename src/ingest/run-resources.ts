// What an ingest run opens besides its input before the read (files.ts `ingestSteps` closes each
// once, whatever happened): the locks with the targets prepared under them (steps 2 and 3), and
// the record prefetch (started once the caller was told the read begins).
import { lstat, stat } from "node:fs/promises";
import { displayText } from "../core/display-text.js";
import type { VerdictCache } from "../cache/verdict-cache.js";
import { lockTargets, type PublicationLock } from "../publish/lock.js";
import { removePreviousPair } from "../publish/publish.js";
import { checkTargetDirectories, preflightTargets } from "./target-checks.js";
import { removeLeftoverScratch } from "../publish/scratch-file.js";
import { RecordPrefetch } from "./record-prefetch.js";
import { stopIfAborted, type IngestRunPlan } from "./run-plan.js";

/**
 * Steps 2 and 3: the locks, the pre-flight repeated under them, the previous pair removed (then
 * `onPairRemoved` is told: the run's error must say so), the directories; releases the locks on failure.
 */
export async function lockAndPrepareTargets(plan: IngestRunPlan, onPairRemoved: () => void): Promise<PublicationLock> {
  const { targets, fs, reporter } = plan;
  const lock = await lockTargets(targets, plan.lock.waitSeconds, plan.signal);
  try {
    await preflightTargets(targets);
    stopIfAborted(plan);
    if (targets.overwrite) {
      const existing = [targets.manifestPath, targets.exportPath].filter((path): path is string => path !== null);
      const present = await Promise.all(existing.map((path) => lstat(path).catch(() => null)));
      // Told once the removal is done: its own errors say what they did and did not remove.
      await removePreviousPair(targets, fs);
      if (present.some((info) => info !== null)) onPairRemoved();
    }
    await checkTargetDirectories(targets);
    // Scratch files of a run that was killed before it could remove them; the lock says no
    // live run owns them.
    for (const target of [targets.manifestPath, targets.exportPath]) {
      if (target === null) continue;
      for (const path of await removeLeftoverScratch(target)) reporter.warn?.(`removed a scratch file left by an interrupted run: ${displayText(path)}`);
    }
    return lock;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** The record prefetch for this run, or null when the run has no cache, reads standard input or a small file, or the worker script is missing. */
export async function startPrefetch(plan: IngestRunPlan, store: VerdictCache | null): Promise<RecordPrefetch | null> {
  if (plan.cache === null || store === null || plan.source.kind !== "file") return null;
  // Only a head start: an input that cannot be stat'ed here is refused by the reader, not here.
  const size = (await stat(plan.source.path).catch(() => null))?.size;
  if (size === undefined || size < plan.cache.prefetch.minInputBytes) return null;
  return RecordPrefetch.start({
    cachePath: store.path,
    settings: plan.recordSettings,
    besidePath: plan.targets.manifestPath,
    ...(plan.signal ? { signal: plan.signal } : {}),
    ...(plan.cache.prefetch.workerUrl ? { workerUrl: plan.cache.prefetch.workerUrl } : {}),
  });
}
