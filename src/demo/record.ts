// `demo --live --record PATH`: turns a verified live run into a capture in our format, so a user
// with Ollama can make the capture this package cannot ship. Only a complete contrast is recorded;
// expectations are what this build's analyzer said about these exact reply bytes.
import { constants } from "node:fs";
import { access, lstat, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { displayText } from "../core/display-text.js";
import { isPlainObject } from "../core/guards.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT_SHA256 } from "../documents/system-prompt.js";
import { writeFileAtomic } from "../publish/atomic-write.js";
import { VERSION } from "../core/version.js";
import { parseCaptureJson, sealCapture, type Capture } from "./capture.js";
import { CAPTURE_KIND, CAPTURE_SCHEMA, DEMO_GENERATION, MAX_CAPTURE_BYTES } from "./contrast.js";
import type { DemoOutcome } from "./outcome.js";
import { DemoArgumentError } from "./live-endpoint.js";

/** A replay capture made from a live outcome, or null when the outcome is not complete enough to replay. */
export function captureFromLive(outcome: DemoOutcome, recordedAt: Date): Capture | null {
  if (outcome.runKind !== "LIVE" || outcome.status !== "LIVE CONTRAST VERIFIED") return null;
  const fields = outcome.fields as { model?: unknown; model_digest?: unknown; endpoint?: unknown };
  if (typeof fields.model !== "string" || typeof fields.model_digest !== "string") return null;
  return sealCapture({
    schema: CAPTURE_SCHEMA,
    fixture_kind: CAPTURE_KIND,
    capture: {
      timestamp_utc: recordedAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
      source_sha: "unavailable",
      backend: "ollama",
      model: fields.model,
      model_digest: fields.model_digest,
      runtime_version: `little-canary ${VERSION}`,
      system_prompt_sha256: DEFAULT_CANARY_SYSTEM_PROMPT_SHA256,
      temperature: DEMO_GENERATION.temperature,
      seed: DEMO_GENERATION.seed,
      max_tokens: DEMO_GENERATION.maxTokens,
      provenance_note:
        `recorded by little-canary ${VERSION} demo --live against a loopback Ollama; temperature=0, seed=42, ` +
        "max_tokens=256, default canary system prompt; expectations derived by this build's BehavioralAnalyzer " +
        "from these exact response bytes; model output can vary across runtimes.",
    },
    cases: outcome.cases.map((c) => ({
      id: c.id,
      input: c.input,
      response: c.response,
      expected: { risk: c.risk ?? 0, block: c.verdict === "BLOCK", signals: [...c.signals] },
    })),
  });
}

/**
 * Whether `path` may take a capture: nothing there yet, or an earlier capture. Anything else (the
 * input of another command, a manifest, a symlink) is never replaced: a slip of `--record` must
 * not cost a file.
 */
export async function replaceableByCapture(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (info === null) return true;
  if (!info.isFile() || info.size > MAX_CAPTURE_BYTES) return false;
  try {
    const value = parseCaptureJson(await readFile(path));
    return isPlainObject(value) && value["schema"] === CAPTURE_SCHEMA;
  } catch {
    return false;
  }
}

/**
 * Refuses (DemoArgumentError, setting `recordPath`) a record path that could never take the
 * capture, before the live run spends its model calls: a directory, an existing file that is not
 * an earlier capture (replaceableByCapture), or a directory that does not exist or cannot be
 * written (the capture is written beside its path, then renamed over it). The write checks again,
 * as the file system may change during the run.
 */
export async function checkRecordPath(path: string): Promise<void> {
  const shown = displayText(path);
  // Annotated, so the checks below narrow on it as on a throw.
  const refuse: (say: (name: string) => string) => never = (say) => {
    throw new DemoArgumentError("recordPath", say);
  };
  if (path.trim() === "") refuse((name) => `${name} must not be empty`);
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    if (info.code === "ENOTDIR") refuse((name) => `${name}: ${shown} is in a path whose parent is not a directory`);
    if (info.code !== "ENOENT") refuse((name) => `${name}: ${shown} cannot be examined (${info.code ?? "error"})`);
  } else if (info.isDirectory()) {
    refuse((name) => `${name}: ${shown} is a directory; give ${name} a file path`);
  } else if (!(await replaceableByCapture(path))) {
    // The words of the refusal after a run (command.ts), now before it.
    refuse((name) => `${shown} exists and is not a demo capture; it is never replaced (give ${name} a new path)`);
  }
  const directory = dirname(path);
  const parent = await stat(directory).catch(() => null);
  if (parent === null) refuse((name) => `${name}: the directory of ${shown} does not exist`);
  if (!parent.isDirectory()) refuse((name) => `${name}: ${shown} is in a path whose parent is not a directory`);
  const writable = await access(directory, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) refuse((name) => `${name}: the directory of ${shown} is not writable`);
}

/** Writes the capture file atomically and durably (the one atomic write). */
export async function writeCapture(path: string, capture: Capture): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(capture, null, 2)}\n`);
}
