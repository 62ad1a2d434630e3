// Every file-system operation of a publication, failed in turn with every error code: the
// directory afterwards holds the complete new pair or no pair — never a manifest without its
// export, never a half-written target, never a stale pair, never a leftover temp — and a file a
// concurrent writer put at a target survives whatever rollback does.
import { readFile, writeFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestRecords } from "../../src/ingest/run.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { PublishError } from "../../src/publish/targets.js";
import type { PublishFsCall } from "../../bench/_fs-hooks.js";
import { startOllamaStandIn } from "../support/ollama-stand-in.js";
import {
  ERROR_CODES,
  dirState,
  failingFs,
  publishInMemory as publish,
  recordingFs,
  tempDir,
  type DirState,
  type InMemoryDocuments,
} from "../support/publish-fixtures.js";

let fresh: InMemoryDocuments;
let fresher: InMemoryDocuments;
let manifestOnly: InMemoryDocuments;
let root: string;
let cleanupRoot: () => Promise<void>;
let counter = 0;

async function documents(url: string, texts: string[], exportRequested: boolean): Promise<InMemoryDocuments> {
  const pipeline = new SecurityPipeline({ ollamaUrl: url, canaryNumCtx: 32768, mode: "full" });
  const run = await ingestRecords(pipeline, { inputs: texts }, { exportRequested });
  return { manifest: run.manifest, export: run.export };
}

beforeAll(async () => {
  const ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  try {
    fresh = await documents(ollama.url, ["A report about rivers.", "A note about mountains."], true);
    fresher = await documents(ollama.url, ["An older report about lakes."], true);
    manifestOnly = await documents(ollama.url, ["A report about rivers."], false);
  } finally {
    await ollama.close();
  }
  ({ dir: root, cleanup: cleanupRoot } = await tempDir());
});
afterAll(() => cleanupRoot());

async function scratch(): Promise<string> {
  const dir = join(root, `case-${counter++}`);
  await import("node:fs/promises").then((fs) => fs.mkdir(dir));
  return dir;
}

const OLD_MANIFEST = Buffer.from('{"old":"manifest"}');
const OLD_EXPORT = Buffer.from('{"old":"export"}');
const FOREIGN = Buffer.from("a concurrent writer's file\n");

interface Scenario {
  readonly name: string;
  readonly docs: () => InMemoryDocuments;
  readonly withExport: boolean;
  readonly previousPair: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: "manifest and export into an empty directory", docs: () => fresh, withExport: true, previousPair: false },
  { name: "manifest only", docs: () => manifestOnly, withExport: false, previousPair: false },
  { name: "--overwrite over a previous pair", docs: () => fresh, withExport: true, previousPair: true },
];

async function attempt(dir: string, scenario: Scenario, fs: ReturnType<typeof recordingFs>["fs"], log: string[] = []) {
  if (scenario.previousPair) {
    await writeFile(join(dir, "m.json"), OLD_MANIFEST);
    await writeFile(join(dir, "e.json"), OLD_EXPORT);
  }
  try {
    await publish(
      scenario.docs(),
      { manifestPath: join(dir, "m.json"), exportPath: scenario.withExport ? join(dir, "e.json") : null, overwrite: scenario.previousPair },
      { fs, log: (line) => log.push(line) },
    );
    return { ok: true as const, state: await dirState(dir) };
  } catch (error) {
    return { ok: false as const, error, state: await dirState(dir) };
  }
}

function expectNeverUnsafe(state: DirState, docs: InMemoryDocuments, error?: unknown): void {
  const message = error instanceof Error ? error.message : "";
  if (state.manifest?.equals(OLD_MANIFEST)) {
    // --overwrite could not remove the previous manifest: the run refused with the old pair
    // exactly as it was (the same outcome as a refused setting), never a mix of old and new.
    expect(message).toContain("could not remove the previous manifest");
    expect(state.export?.equals(OLD_EXPORT)).toBe(true);
    return;
  }
  if (state.export?.equals(OLD_EXPORT)) {
    // The old manifest is gone, its export could not be removed: an export alone, and said so.
    expect(message).toContain("could not remove the previous export");
    expect(state.manifest).toBeNull();
    return;
  }
  // No manifest without its export, and no manifest that is not the new one.
  if (state.manifest !== null) {
    expect(state.manifest.equals(Buffer.from(docs.manifest.bytes))).toBe(true);
    if (docs.export !== null) expect(state.export?.equals(Buffer.from(docs.export.bytes))).toBe(true);
  }
  // No half-written target and nothing stale: an export, when present, is the complete new one.
  if (state.export !== null && docs.export !== null) expect(state.export.equals(Buffer.from(docs.export.bytes))).toBe(true);
  expect(state.files).not.toContain("m.json.lock");
}

function expectCompletePairOrNothing(outcome: Awaited<ReturnType<typeof attempt>>, scenario: Scenario): void {
  const docs = scenario.docs();
  expectNeverUnsafe(outcome.state, docs);
  expect(outcome.state.temps).toEqual([]);
  expect(outcome.state.recoveryDirs).toEqual([]);
  if (outcome.ok) {
    expect(outcome.state.manifest?.equals(Buffer.from(docs.manifest.bytes))).toBe(true);
    if (docs.export !== null) expect(outcome.state.export?.equals(Buffer.from(docs.export.bytes))).toBe(true);
  } else {
    expect(outcome.error).toBeInstanceOf(PublishError);
    expect((outcome.error as PublishError).code).toBe("publish");
    expect(outcome.state.manifest).toBeNull();
    expect(outcome.state.export).toBeNull();
  }
}

describe.each(SCENARIOS)("publication of $name", (scenario) => {
  it("lists the operations a clean publication performs", async () => {
    const dir = await scratch();
    const recorder = recordingFs();
    const outcome = await attempt(dir, scenario, recorder.fs);
    expect(outcome.ok).toBe(true);
    const ops = new Set(recorder.calls.map((call) => call.op));
    for (const op of ["open", "write", "fsync", "close", "stat", "link", "unlink"]) expect(ops).toContain(op);
    expect(outcome.state.temps).toEqual([]);
  });

  it("fails each operation once with ENOSPC, EIO, EACCES and EXDEV: the complete new pair or no pair", async () => {
    const clean = recordingFs();
    await attempt(await scratch(), scenario, clean.fs);
    const total = clean.calls.length;
    expect(total).toBeGreaterThanOrEqual(scenario.withExport ? 14 : 8);
    let failures = 0;
    for (let at = 0; at < total; at++) {
      for (const code of ERROR_CODES) {
        const dir = await scratch();
        const faulty = failingFs(at, code);
        const outcome = await attempt(dir, scenario, faulty.fs);
        expect(faulty.calls.length).toBeGreaterThan(at);
        expectCompletePairOrNothing(outcome, scenario);
        if (!outcome.ok) {
          failures++;
          expect((outcome.error as Error).message).toContain("nothing published");
        }
      }
    }
    // Before the commit every failure is fatal; at least the writes, fsyncs and links were.
    expect(failures).toBeGreaterThanOrEqual(4 * 6);
  });

  it("keeps failing every operation from each point on: no manifest without export, leftovers only where cleanup was blocked", async () => {
    const clean = recordingFs();
    await attempt(await scratch(), scenario, clean.fs);
    for (let at = 0; at < clean.calls.length; at++) {
      const dir = await scratch();
      const log: string[] = [];
      const outcome = await attempt(dir, scenario, failingFs(at, "EIO", true).fs, log);
      expectNeverUnsafe(outcome.state, scenario.docs(), outcome.ok ? undefined : outcome.error);
      if (outcome.ok) {
        // Committed before the faults began: a temp can remain only as a byte-identical copy.
        for (const temp of outcome.state.temps) {
          const bytes = await readFile(join(dir, temp));
          const same = [scenario.docs().manifest.bytes, scenario.docs().export?.bytes].some((doc) => doc && bytes.equals(Buffer.from(doc)));
          expect(same).toBe(true);
          expect(log.join("\n")).toContain(temp);
        }
      } else {
        // A failed publication never leaves the new manifest (only, above, an untouched old pair).
        expect(outcome.state.manifest?.equals(Buffer.from(scenario.docs().manifest.bytes)) ?? false).toBe(false);
        // Every leftover is named in the log, so the user is told where it is.
        for (const temp of outcome.state.temps) expect(log.join("\n")).toContain(temp);
        if (outcome.state.export !== null && !outcome.state.export.equals(OLD_EXPORT)) expect(log.join("\n")).toContain("e.json");
      }
    }
  });
});

describe("rollback of a published export", () => {
  const scenario = SCENARIOS[0]!;
  const isManifestLink = (call: PublishFsCall) => call.op === "link" && call.to?.endsWith("m.json") === true;

  it("fails each rollback operation once with every code: still no pair and nothing left behind", async () => {
    // First fault: the manifest link. Then each operation of the rollback that follows fails once.
    const probe = recordingFs(async (call) => {
      if (isManifestLink(call)) throw Object.assign(new Error("EIO"), { code: "EIO" });
    });
    await attempt(await scratch(), scenario, probe.fs);
    const first = probe.calls.findIndex(isManifestLink);
    const rollbackOps = probe.calls.slice(first + 1);
    expect(rollbackOps.map((call) => call.op)).toEqual(expect.arrayContaining(["mkdir", "rename", "stat", "unlink", "rmdir"]));
    for (let offset = 1; offset <= rollbackOps.length; offset++) {
      for (const code of ERROR_CODES) {
        const dir = await scratch();
        const faulty = recordingFs(async (call, index) => {
          if (isManifestLink(call)) throw Object.assign(new Error("EIO"), { code: "EIO" });
          if (index === first + offset) throw Object.assign(new Error(code), { code });
        });
        const outcome = await attempt(dir, scenario, faulty.fs);
        expect(outcome.ok).toBe(false);
        expectCompletePairOrNothing(outcome, scenario);
      }
    }
  });

  it("never deletes a concurrent replacement of the export: it is restored at the target", async () => {
    const dir = await scratch();
    const log: string[] = [];
    const fs = recordingFs(async (call) => {
      if (isManifestLink(call)) {
        // A writer that ignores the lock replaces our export, then our manifest link fails.
        await writeFile(join(dir, "intruder"), FOREIGN);
        await rename(join(dir, "intruder"), join(dir, "e.json"));
        throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC" });
      }
    }).fs;
    const outcome = await attempt(dir, scenario, fs, log);
    expect(outcome.ok).toBe(false);
    expect(outcome.state.export?.equals(FOREIGN)).toBe(true);
    expect(outcome.state.manifest).toBeNull();
    expect(outcome.state.recoveryDirs).toEqual([]);
    expect(log.join("\n")).toContain("kept a concurrent replacement");
  });

  it("keeps a concurrent replacement in the recovery directory, and logs it, when it cannot be linked back", async () => {
    const dir = await scratch();
    const log: string[] = [];
    const fs = recordingFs(async (call) => {
      if (isManifestLink(call)) {
        await writeFile(join(dir, "intruder"), FOREIGN);
        await rename(join(dir, "intruder"), join(dir, "e.json"));
        throw Object.assign(new Error("EIO"), { code: "EIO" });
      }
      // Restoring fails: the link back to the target path.
      if (call.op === "link" && call.path.includes(".ingest-recovery-")) throw Object.assign(new Error("EIO"), { code: "EIO" });
    }).fs;
    const outcome = await attempt(dir, scenario, fs, log);
    expect(outcome.ok).toBe(false);
    expect(outcome.state.export).toBeNull();
    expect(outcome.state.recoveryDirs).toHaveLength(1);
    const kept = join(dir, outcome.state.recoveryDirs[0]!, "e.json");
    expect((await readFile(kept)).equals(FOREIGN)).toBe(true);
    expect(log.join("\n")).toContain(`retained a concurrent file at ${kept}`);
  });

  it("a racer that creates the manifest first keeps its file; our export is rolled back", async () => {
    const dir = await scratch();
    const fs = recordingFs(async (call) => {
      if (isManifestLink(call)) await writeFile(join(dir, "m.json"), FOREIGN);
    }).fs;
    const outcome = await attempt(dir, scenario, fs);
    expect(outcome.ok).toBe(false);
    expect((outcome.error as Error).message).toContain("refusing to overwrite existing file");
    expect(outcome.state.manifest?.equals(FOREIGN)).toBe(true);
    expect(outcome.state.export).toBeNull();
    expect(outcome.state.temps).toEqual([]);
  });

  it("a racer that creates the export first keeps its file and nothing of ours is published", async () => {
    const dir = await scratch();
    const fs = recordingFs(async (call) => {
      if (call.op === "link" && call.to?.endsWith("e.json")) await writeFile(join(dir, "e.json"), FOREIGN);
    }).fs;
    const outcome = await attempt(dir, scenario, fs);
    expect(outcome.ok).toBe(false);
    expect(outcome.state.export?.equals(FOREIGN)).toBe(true);
    expect(outcome.state.manifest).toBeNull();
    expect(outcome.state.temps).toEqual([]);
  });
});

describe("publication under a lost lock", () => {
  it("does not commit once the lock is compromised: the export is taken back, nothing published", async () => {
    const dir = await scratch();
    let lost: Error | null = null;
    const lock = {
      manifestPath: join(dir, "m.json"),
      lockPath: join(dir, "m.json.lock"),
      get compromised() {
        return lost;
      },
      release: async () => undefined,
      takenOver: async () => lost !== null,
    };
    const fs = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("e.json")) lost = new Error("lock taken over");
    }).fs;
    await expect(publish(fresh, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false }, { fs, lock })).rejects.toThrow(
      "publication lock",
    );
    expect((await dirState(dir)).files).toEqual([]);
  });
});

describe("publication inputs", () => {
  it("refuses a manifest that does not record the export it is published with, before touching the disk", async () => {
    const dir = await scratch();
    const recorder = recordingFs();
    await expect(
      publish(manifestOnly, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false }, { fs: recorder.fs }),
    ).rejects.toThrow(/export/);
    expect(recorder.calls).toEqual([]);
    expect((await dirState(dir)).files).toEqual([]);
  });

  it("refuses an export bound to another manifest", async () => {
    const dir = await scratch();
    const mixed: InMemoryDocuments = { manifest: fresh.manifest, export: fresher.export };
    await expect(publish(mixed, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false })).rejects.toThrow(
      "not bound to this manifest",
    );
    expect((await dirState(dir)).files).toEqual([]);
  });

  it("refuses bytes that do not match the recorded sha256", async () => {
    const dir = await scratch();
    const bytes = Uint8Array.from(fresh.manifest.bytes);
    bytes[bytes.length - 2] = 0x20;
    const tampered: InMemoryDocuments = { manifest: { ...fresh.manifest, bytes }, export: fresh.export };
    await expect(publish(tampered, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false })).rejects.toThrow(
      "do not match its sha256",
    );
    expect((await dirState(dir)).files).toEqual([]);
  });

  it("publishes files readable by their owner only, from temps in the target directory", async () => {
    const dir = await scratch();
    const recorder = recordingFs();
    await publish(fresh, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false }, { fs: recorder.fs });
    const temps = recorder.calls.filter((call) => call.op === "open" && call.path.endsWith(".tmp")).map((call) => call.path);
    expect(temps).toHaveLength(2);
    for (const temp of temps) expect(temp).toMatch(new RegExp(`^${dir}/\\.(m|e)\\.json\\.[0-9a-f]{16}\\.tmp$`));
    const { stat } = await import("node:fs/promises");
    expect((await stat(join(dir, "m.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "e.json"))).mode & 0o777).toBe(0o600);
  });

  it("without overwrite, an existing target is refused and kept", async () => {
    const dir = await scratch();
    await writeFile(join(dir, "e.json"), OLD_EXPORT);
    await expect(publish(fresh, { manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json"), overwrite: false })).rejects.toThrow(
      "refusing to overwrite existing file",
    );
    const state = await dirState(dir);
    expect(state.export?.equals(OLD_EXPORT)).toBe(true);
    expect(state.manifest).toBeNull();
    expect(state.temps).toEqual([]);
  });
});
