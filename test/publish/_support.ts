// Helpers for publication tests: real temp directories, an in-process CliIo whose signals a test
// can trigger, ingest flags aimed at the loopback Ollama stand-in, a fault-injecting file system
// and a classifier of what a directory holds after a publication.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import type { CliIo } from "../../cli/io.js";
import type { IngestFlags } from "../../cli/commands/ingest.js";
import { hookedFs, injectedFsError, type PublishFsCall, type PublishFsOperation } from "../../src/publish/fs-hooks.js";
import { nodePublishFs, type PublishFs } from "../../src/publish/fs.js";

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "lc-publish-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

class Capture extends Writable {
  private chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    callback();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export interface TestIo {
  readonly io: CliIo;
  stdout(): string;
  stderr(): string;
  trigger(signal: NodeJS.Signals): void;
}

export function testIo(cwd: string, stdin: Readable = Readable.from([])): TestIo {
  const stdout = new Capture();
  const stderr = new Capture();
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  return {
    io: {
      stdin,
      stdout,
      stderr,
      env: {},
      cwd,
      stderrIsTTY: false,
      onSignal(handler) {
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
    },
    stdout: () => stdout.text(),
    stderr: () => stderr.text(),
    trigger: (signal) => handlers.forEach((handler) => handler(signal)),
  };
}

export function ingestFlags(ollamaUrl: string, overrides: Partial<IngestFlags> = {}): IngestFlags {
  return {
    manifest: "m.json",
    export: "e.json",
    mode: "full",
    canaryModel: "qwen2.5:1.5b",
    ollamaUrl,
    timeout: 10,
    canary: true,
    concurrency: 1,
    ...overrides,
  };
}

export const RECORDS = [
  JSON.stringify({ text: "The quarterly report is attached for review.", id: "r1" }),
  JSON.stringify({ text: "Paris is the capital of France.", id: "r2" }),
  "",
].join("\n");

export const ERROR_CODES = ["ENOSPC", "EIO", "EACCES", "EXDEV"] as const;

export interface RecordingFs {
  readonly fs: PublishFs;
  readonly calls: PublishFsCall[];
}

/** Records every call; `before` may throw (fail it), delay it, or act as a concurrent writer. */
export function recordingFs(before: (call: PublishFsCall, index: number) => void | Promise<void> = () => undefined): RecordingFs {
  const calls: PublishFsCall[] = [];
  const fs = hookedFs(nodePublishFs, async (call) => {
    calls.push(call);
    await before(call, calls.length - 1);
  });
  return { fs, calls };
}

/** Fails call number `at` (one shot) or every call from `at` on (persistent). */
export function failingFs(at: number, code: string, persistent = false, before?: (call: PublishFsCall, index: number) => void | Promise<void>): RecordingFs {
  return recordingFs(async (call, index) => {
    await before?.(call, index);
    if (index === at || (persistent && index > at)) throw injectedFsError(code, call);
  });
}

export interface DirState {
  readonly files: string[];
  readonly manifest: Buffer | null;
  readonly export: Buffer | null;
  readonly temps: string[];
  readonly recoveryDirs: string[];
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}

export async function dirState(dir: string, manifest = "m.json", exported = "e.json"): Promise<DirState> {
  const files = (await readdir(dir)).sort();
  return {
    files,
    manifest: await readOrNull(join(dir, manifest)),
    export: await readOrNull(join(dir, exported)),
    temps: files.filter((name) => name.endsWith(".tmp")),
    recoveryDirs: files.filter((name) => name.startsWith(".ingest-recovery-")),
  };
}

export type { PublishFsOperation };
