// What an ingest run holds open besides its input, opened from its plan before the read and closed
// once, whatever happened: the verdict cache (first: a file that is not one refuses the run before
// anything is read), the CI reports, the locks with the targets prepared under them (steps 2 and
// 3), the id index, and the record prefetch (started once the caller was told the read begins).
import { lstat, stat } from "node:fs/promises";
import { displayText } from "../core/display-text.js";
import { IdIndex } from "../cache/id-index.js";
import { cacheNotOpened, canaryOff } from "../cache/identity.js";
import { VerdictCache } from "../cache/verdict-cache.js";
import { lockTargets, type PublicationLock } from "../publish/lock.js";
import { removePreviousPair } from "../publish/publish.js";
import { checkTargetDirectories, preflightTargets } from "./target-checks.js";
import { CiReports } from "../report/ci-reports.js";
import { removeLeftoverScratch, scratchPathFor } from "../publish/scratch-file.js";
import type { RecordIdIndex } from "./id-index.js";
import { RecordPrefetch } from "./record-prefetch.js";
import { stopIfAborted, type IngestRunPlan } from "./run-plan.js";

/** The resources of a run once all are open; a run without a cache or reports has null there. */
export interface OpenRunResources {
  readonly store: VerdictCache | null;
  readonly reports: CiReports | null;
  readonly lock: PublicationLock;
  readonly ids: RecordIdIndex;
}

/** Opens a run's resources in order and closes whichever were opened; the run's error says so once a previous pair is removed. */
export class RunResources {
  private store: VerdictCache | null = null;
  private reports: CiReports | null = null;
  private lock: PublicationLock | null = null;
  private ids: IdIndex | null = null;
  private prefetch: RecordPrefetch | null = null;
  private removedPair = false;

  constructor(private readonly plan: IngestRunPlan) {}

  /** True once `overwrite` has removed a previous pair under the lock. */
  get previousPairRemoved(): boolean {
    return this.removedPair;
  }

  /** Opens the cache, the reports, the locks (preparing the targets under them) and the id index. */
  async open(): Promise<OpenRunResources> {
    const { plan } = this;
    this.store = plan.cache === null || this.cacheUnused(plan.cache.path) ? null : VerdictCache.open(plan.cache.path, { clock: plan.clock });
    this.reports = plan.reports === null ? null : await CiReports.open(plan.reports.options, plan.reports.input, plan.cwd, plan.reports.outputs);
    this.lock = await this.prepareTargets();
    this.ids = IdIndex.createAt(scratchPathFor(plan.targets.manifestPath, "ids"));
    return { store: this.store, reports: this.reports, lock: this.lock, ids: this.ids };
  }

  /**
   * True (with a note) when the run's canary is off: nothing it checks could be stored or reused,
   * so the cache file is neither created nor opened.
   */
  private cacheUnused(path: string): boolean {
    const { pipeline } = this.plan;
    const off = "options" in pipeline ? pipeline.options.enableCanary === false : canaryOff(pipeline.built);
    const note = cacheNotOpened(path, !off);
    if (note !== null) this.plan.reporter.warn?.(note);
    return note !== null;
  }

  /** Steps 2 and 3: locks, the repeated pre-flight, the previous pair, the directories. */
  private async prepareTargets(): Promise<PublicationLock> {
    const { targets, fs, reporter } = this.plan;
    const lock = await lockTargets(targets, this.plan.lock.waitSeconds, this.plan.signal, (message) => reporter.warn?.(message));
    try {
      await preflightTargets(targets);
      stopIfAborted(this.plan);
      if (targets.overwrite) {
        const existing = [targets.manifestPath, targets.exportPath].filter((path): path is string => path !== null);
        const present = await Promise.all(existing.map((path) => lstat(path).catch(() => null)));
        // Marked once the removal is done: its own errors say what they did and did not remove.
        await removePreviousPair(targets, fs);
        this.removedPair = present.some((info) => info !== null);
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
  async startPrefetch(): Promise<RecordPrefetch | null> {
    const { plan, store } = this;
    if (plan.cache === null || store === null || plan.source.kind !== "file") return null;
    // Only a head start: an input that cannot be stat'ed here is refused by the reader, not here.
    const size = (await stat(plan.source.path).catch(() => null))?.size;
    if (size === undefined || size < plan.cache.prefetch.minInputBytes) return null;
    this.prefetch = await RecordPrefetch.start({
      cachePath: store.path,
      settings: plan.recordSettings,
      besidePath: plan.targets.manifestPath,
      ...(plan.signal ? { signal: plan.signal } : {}),
      ...(plan.cache.prefetch.workerUrl ? { workerUrl: plan.cache.prefetch.workerUrl } : {}),
    });
    return this.prefetch;
  }

  /** The locks when another run has taken them over while this run held them, else null (see PublicationLock.takenOver). */
  async locksTakenOver(): Promise<PublicationLock | null> {
    return this.lock !== null && (await this.lock.takenOver()) ? this.lock : null;
  }

  /** Closes everything opened, in reverse order of need; the locks last. */
  async close(): Promise<void> {
    await this.prefetch?.remove();
    this.ids?.close();
    this.store?.close();
    await this.reports?.remove();
    await this.lock?.release();
  }
}
