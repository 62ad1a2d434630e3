// Rollback of a publication that did not commit: remove our temps, then take back every target
// this call published, only while it is still ours. Stat-then-unlink is racy (a concurrent
// writer could replace the file in between), so a target is first renamed into a private
// `.ingest-recovery-<random>/` beside it and compared with the identity we recorded (dev, ino,
// size): ours is deleted; anything else is linked back (no-clobber, else it stays there and the
// path is logged). Rollback never deletes a file that is not ours.
import { basename, dirname, join } from "node:path";
import { sameIdentity, type PublishFs } from "./fs.js";
import { errorCode } from "../core/errors.js";
import { randomName, unlinkQuietly, type TempFile } from "./temp.js";
import { displayText } from "../core/display-text.js";

const RECOVERY_PREFIX = ".ingest-recovery-";

export type RollbackLog = (message: string) => void;

/** Removes each registered temp; what cannot be removed stays in the set and is logged. */
export async function removeTemps(fs: PublishFs, temps: Set<string>, log: RollbackLog): Promise<void> {
  for (const path of [...temps]) {
    const failure = await unlinkQuietly(fs, path);
    if (failure === null) temps.delete(path);
    else log(`could not remove temporary file ${displayText(path)} (${failure})`);
  }
}

/** Runs `operation` again when it fails with an error `again` accepts (any, by default). */
async function retryOnce<T>(operation: () => Promise<T>, again = (_error: unknown) => true): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!again(error)) throw error;
    return operation();
  }
}

async function removeRecoveryDir(fs: PublishFs, directory: string, log: RollbackLog): Promise<void> {
  try {
    await retryOnce(() => fs.rmdir(directory));
  } catch (error) {
    if (errorCode(error) !== "ENOENT") log(`could not remove recovery directory ${displayText(directory)} (${errorCode(error) ?? "unknown error"})`);
  }
}

/** Takes back one published target (its path, the identity its temp had) if it is still ours; never deletes anyone else's file. */
export async function withdrawTarget(fs: PublishFs, target: TempFile, log: RollbackLog): Promise<void> {
  const recovery = join(dirname(target.path), `${RECOVERY_PREFIX}${randomName()}`);
  const held = join(recovery, basename(target.path));
  try {
    await retryOnce(async () => {
      try {
        await fs.mkdir(recovery, 0o700);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
    });
  } catch (error) {
    log(`rollback could not create ${displayText(recovery)} (${errorCode(error) ?? "unknown error"}); ${displayText(target.path)} is left in place`);
    return;
  }
  try {
    await retryOnce(
      () => fs.rename(target.path, held),
      (error) => errorCode(error) !== "ENOENT",
    );
  } catch (error) {
    // ENOENT: someone removed it already, so nothing of ours is at the target any more.
    if (errorCode(error) !== "ENOENT") {
      log(`rollback could not move ${displayText(target.path)} aside (${errorCode(error) ?? "unknown error"}); it is left in place`);
    }
    await removeRecoveryDir(fs, recovery, log);
    return;
  }
  // Identity unknown: treat it as someone else's, which is the case that never loses data.
  const ours = await retryOnce(() => fs.stat(held))
    .then((stat) => sameIdentity(stat, target.identity))
    .catch(() => false);
  if (ours) {
    const failure = await unlinkQuietly(fs, held);
    if (failure !== null) {
      log(`rollback could not remove ${held} (${failure}); it is our own unpublished file`);
      return;
    }
    await removeRecoveryDir(fs, recovery, log);
    return;
  }
  try {
    await retryOnce(() => fs.link(held, target.path));
  } catch (error) {
    log(
      `ingest rollback retained a concurrent file at ${displayText(held)} (it had replaced ${displayText(target.path)}; ${errorCode(error) ?? "unknown error"})`,
    );
    return;
  }
  log(`ingest rollback kept a concurrent replacement of ${displayText(target.path)}`);
  if ((await unlinkQuietly(fs, held)) === null) await removeRecoveryDir(fs, recovery, log);
  else log(`a second link to the concurrent file remains at ${held}`);
}
