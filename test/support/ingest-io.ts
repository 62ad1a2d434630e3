// An in-process CliIo whose signals a test can trigger, and `ingest` flags aimed at the loopback
// Ollama stand-in, for tests that drive `runIngest` (the CLI command) directly.
import { Readable, Writable } from "node:stream";
import type { IngestFlags } from "../../cli/ingest-flags.js";
import type { CliIo } from "../../cli/io.js";

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
    // The stand-in answers at once: the deadline only bounds a hang, far beyond what a busy machine takes.
    timeout: 60,
    canary: true,
    concurrency: 1,
    ...overrides,
  };
}
