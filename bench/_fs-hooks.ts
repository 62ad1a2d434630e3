// A PublishFs wrapper that calls a hook before every operation, so a test or the crash bench can
// fail one operation with a chosen error code, delay it (a slow fsync widens the window in which
// a `kill -9` lands inside publication), or act as a concurrent writer at a precise moment.
// Nothing is monkey-patched: the wrapped file system is passed to `publish` like any other.
import type { PublishFileHandle, PublishFs } from "../src/publish/fs.js";

type PublishFsOperation = "open" | "write" | "fsync" | "close" | "link" | "rename" | "unlink" | "stat" | "mkdir" | "rmdir";

export interface PublishFsCall {
  readonly op: PublishFsOperation;
  /** The path operated on (for write/fsync/close: the path the handle was opened with). */
  readonly path: string;
  /** Second path of link (the target) and rename (the destination). */
  readonly to?: string;
}

/** Runs before the operation; throwing fails it (the operation is then not performed, except a close: see wrapHandle). */
export type PublishFsHook = (call: PublishFsCall) => void | Promise<void>;

/** `base` with `hook` run before each of its operations (see the header). */
export function hookedFs(base: PublishFs, hook: PublishFsHook): PublishFs {
  // The hook runs (and may throw) before the operation, which then runs only if it did not.
  const after = async <T>(call: PublishFsCall, operation: () => Promise<T>): Promise<T> => {
    await hook(call);
    return operation();
  };
  const wrapHandle = (handle: PublishFileHandle, path: string): PublishFileHandle => ({
    write: (data) => after({ op: "write", path }, () => handle.write(data)),
    sync: () => after({ op: "fsync", path }, () => handle.sync()),
    // As close(2) does, a failed close still releases the descriptor: the real handle is closed
    // whatever the hook does, and the hook's error (an injected close failure) is then thrown.
    close: async () => {
      try {
        await hook({ op: "close", path });
      } finally {
        await handle.close();
      }
    },
  });
  return {
    open: (path, purpose, mode) => after({ op: "open", path }, async () => wrapHandle(await base.open(path, purpose, mode), path)),
    link: (existing, target) => after({ op: "link", path: existing, to: target }, () => base.link(existing, target)),
    rename: (from, to) => after({ op: "rename", path: from, to }, () => base.rename(from, to)),
    unlink: (path) => after({ op: "unlink", path }, () => base.unlink(path)),
    stat: (path) => after({ op: "stat", path }, () => base.stat(path)),
    mkdir: (path, mode) => after({ op: "mkdir", path }, () => base.mkdir(path, mode)),
    rmdir: (path) => after({ op: "rmdir", path }, () => base.rmdir(path)),
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
