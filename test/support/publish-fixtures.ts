// Helpers for publication tests: real temp directories (with a loopback Ollama stand-in per test,
// standInAndDirPerTest), ingestFiles options aimed at the stand-in, verifyFiles on a pair, a fault-injecting file system and a classifier of what
// a directory holds after a publication. (The CLI's in-process io lives in test/cli/_ingest-io.ts.)
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canaryNumCtxForPolicy } from "../../src/ingest/files.js";
import type { IngestFilesOptions } from "../../src/ingest/run-plan.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { verifyFiles, type VerifyFilesResult } from "../../src/verify/verify-files.js";
import { hookedFs, injectedFsError, type PublishFsCall } from "../../bench/_fs-hooks.js";
import { nodePublishFs, type PublishFs } from "../../src/publish/fs.js";
import type { z } from "zod";
import { sha256Hex } from "../../src/core/hash.js";
import type { CanonicalDocument } from "../../src/documents/manifest-build.js";
import { exportDocumentSchema, exportSchemaFor, manifestDocumentSchema, type ManifestDocument } from "../../src/documents/manifest-v2.js";
import type { IngestExport } from "../../src/documents/schemas.js";
import type { FramedDocument } from "../../src/publish/framed-document.js";
import { publish, type PublishOptions, type PublishRequest, type PublishResult } from "../../src/publish/publish.js";
import { PublishError } from "../../src/publish/targets.js";
import { afterEach, beforeEach } from "vitest";
import { startOllamaStandIn, type OllamaStandIn } from "./ollama-stand-in.js";

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "lc-publish-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** ingestFiles options for a run in `dir` against the loopback Ollama stand-in at `ollamaUrl`. */
export function ingestOptions(dir: string, ollamaUrl: string, overrides: Partial<IngestFilesOptions> = {}): IngestFilesOptions {
  return {
    input: "in.jsonl",
    manifest: "m.json",
    export: "e.json",
    cwd: dir,
    // The stand-in answers at once: the deadline only bounds a hang, far beyond what a busy machine takes.
    pipeline: (policy) =>
      new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl, canaryTimeout: 60, canaryNumCtx: canaryNumCtxForPolicy(policy) }),
    ...overrides,
  };
}

/** verifyFiles on a pair in `dir` (no export checked when `exported` is null). */
export function verifyPairIn(dir: string, manifest = "m.json", exported: string | null = "e.json"): Promise<VerifyFilesResult> {
  return verifyFiles({ manifest, export: exported, cwd: dir });
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

/** What `standInAndDirPerTest` gives each test: a fresh stand-in and a fresh temp directory. */
export interface StandInAndDir {
  readonly ollama: OllamaStandIn;
  readonly dir: string;
}

/**
 * Registers, for every test of the calling file, an Ollama stand-in that answers every check
 * with a harmless summary (context 32768) and an empty temp directory, both removed afterwards.
 * Read them through the returned object inside a test (they change from test to test).
 */
export function standInAndDirPerTest(): StandInAndDir {
  let current: { ollama: OllamaStandIn; dir: string; cleanup: () => Promise<void> } | null = null;
  const now = () => {
    if (current === null) throw new Error("standInAndDirPerTest: read inside a test");
    return current;
  };
  beforeEach(async () => {
    const ollama = await startOllamaStandIn({ reply: "Here is a short summary of the document.", contextLength: 32768 });
    current = { ollama, ...(await tempDir()) };
  });
  afterEach(async () => {
    await current?.ollama.close();
    await current?.cleanup();
    current = null;
  });
  return {
    get ollama() {
      return now().ollama;
    },
    get dir() {
      return now().dir;
    },
  };
}

/** The documents of a run held in memory (what `ingestRecords` gives), to publish. */
export interface InMemoryDocuments {
  /** A manifest of any version; the export must be of the same version. */
  readonly manifest: CanonicalDocument<ManifestDocument>;
  readonly export: CanonicalDocument<IngestExport> | null;
}

function checkBytes(label: string, document: CanonicalDocument<unknown>, schema: z.ZodType): void {
  if (sha256Hex(document.bytes) !== document.sha256) throw new PublishError(`refusing to publish: the ${label} bytes do not match its sha256`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(document.bytes);
  } catch (error) {
    throw new PublishError(`refusing to publish: the ${label} bytes are not UTF-8`, { cause: error });
  }
  if (text !== document.json) throw new PublishError(`refusing to publish: the ${label} bytes are not its JSON text`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PublishError(`refusing to publish: the ${label} is not JSON`, { cause: error });
  }
  if (!schema.safeParse(parsed).success) throw new PublishError(`refusing to publish: the ${label} does not match its schema`);
}

/**
 * `publish` of documents in memory: their bytes checked first (digest, UTF-8, JSON text, schema),
 * nothing touching the disk on a mismatch, then published as framed documents whose binding
 * `publish` checks. The product publishes only framed documents (src/ingest/files.ts).
 */
export async function publishInMemory(documents: InMemoryDocuments, request: PublishRequest, options?: PublishOptions): Promise<PublishResult> {
  const named = documents.manifest.document.schema;
  checkBytes("manifest", documents.manifest, manifestDocumentSchema(named));
  if (documents.export !== null) checkBytes("export", documents.export, exportDocumentSchema(exportSchemaFor(named)));
  const framed = (document: CanonicalDocument<unknown>): FramedDocument => ({
    sha256: document.sha256,
    size: document.bytes.byteLength,
    writeTo: (write) => write(document.bytes),
  });
  return publish(
    {
      manifest: framed(documents.manifest),
      export: documents.export === null ? null : framed(documents.export),
      exportRequested: documents.manifest.document.run.export_requested,
      exportNamesManifest: documents.export?.document.manifest_sha256 ?? null,
    },
    request,
    options,
  );
}
