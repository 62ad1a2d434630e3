// A PublishFs wrapper that calls a hook before every operation, so a test or the crash bench can
// fail one operation with a chosen error code, delay it (a slow fsync widens the window in which
// a `kill -9` lands inside publication), or act as a concurrent writer at a precise moment.
// Nothing is monkey-patched: the wrapped file system is passed to `publish` like any other.
import type { PublishFileHandle, PublishFs } from "./fs.js";

type PublishFsOperation = "open" | "write" | "fsync" | "close" | "link" | "rename" | "unlink" | "stat" | "mkdir" | "rmdir";

export interface PublishFsCall {
  readonly op: PublishFsOperation;
  /** The path operated on (for write/fsync/close: the path the handle was opened with). */
  readonly path: string;
  /** Second path of link (the target) and rename (the destination). */
  readonly to?: string;
}

/** Runs before the operation; throwing fails it (the operation is then not performed). */
export type PublishFsHook = (call: PublishFsCall) => void | Promise<void>;

export function hookedFs(base: PublishFs, hook: PublishFsHook): PublishFs {
  const wrapHandle = (handle: PublishFileHandle, path: string): PublishFileHandle => ({
    async write(data) {
      await hook({ op: "write", path });
      await handle.write(data);
    },
    async sync() {
      await hook({ op: "fsync", path });
      await handle.sync();
    },
    async close() {
      await hook({ op: "close", path });
      await handle.close();
    },
  });
  return {
    async open(path, purpose, mode) {
      await hook({ op: "open", path });
      return wrapHandle(await base.open(path, purpose, mode), path);
    },
    async link(existing, target) {
      await hook({ op: "link", path: existing, to: target });
      await base.link(existing, target);
    },
    async rename(from, to) {
      await hook({ op: "rename", path: from, to });
      await base.rename(from, to);
    },
    async unlink(path) {
      await hook({ op: "unlink", path });
      await base.unlink(path);
    },
    async stat(path) {
      await hook({ op: "stat", path });
      return base.stat(path);
    },
    async mkdir(path, mode) {
      await hook({ op: "mkdir", path });
      await base.mkdir(path, mode);
    },
    async rmdir(path) {
      await hook({ op: "rmdir", path });
      await base.rmdir(path);
    },
  };
}

/** An error shaped like Node's own system errors (code, syscall, path), for injection. */
export function injectedFsError(code: string, call: PublishFsCall): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected failure, ${call.op} '${call.path}'`), {
    code,
    syscall: call.op,
    path: call.path,
  });
}
