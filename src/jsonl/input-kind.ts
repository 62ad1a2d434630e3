// Refuses an input path that no run can read as it needs, before anything is opened or removed,
// in the same words for every command that reads a JSONL file (ingest, screen).
import { stat } from "node:fs/promises";
import { UsageError } from "../core/errors.js";

/**
 * Refuses an input path no run can read as it needs, before anything is removed or opened: a
 * path that does not exist, a directory, and for a sharded run (`sharded`) anything but a regular file. A sharded run reads its input
 * twice (once to hash and count it, once for its range): a named pipe or a process substitution
 * (`<(cmd)`) would be empty the second time, and the run would end saying the input changed. A
 * stat opens nothing (opening a pipe would wait for its writer); a path that cannot be stat'ed
 * is left to the read, which names the problem.
 */
export async function refuseInputKind(given: string, path: string, sharded: boolean): Promise<void> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? ("missing" as const) : null));
  // A mistyped input path is a setting that cannot work: refused before --overwrite removes anything.
  if (info === "missing") throw new UsageError(`the input ${JSON.stringify(given)} does not exist`);
  if (info === null || info.isFile()) return;
  if (info.isDirectory()) throw new UsageError(`the input ${JSON.stringify(given)} is a directory; give a JSONL file (or - for standard input)`);
  if (!sharded) return;
  const kind = info.isFIFO() ? "a pipe (a named pipe or <(command))" : "not a regular file";
  throw new UsageError(`--shard needs an input file that can be read twice: ${JSON.stringify(given)} is ${kind}; save it to a file first`);
}
