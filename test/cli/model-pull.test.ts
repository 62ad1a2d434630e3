// `model pull` on the command line: an empty --model-dir is refused before anything is created or
// fetched (it never falls back to the default directory), an empty $LITTLE_CANARY_MODEL_DIR counts
// as unset, and a partial download that cannot be resumed (HTTP 416, or a Range the mirror ignores) is discarded and
// said so on stderr.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EMBEDDED_MODEL } from "../../src/canary/embedded-models.js";
import { runCli } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";

const SERVED = Buffer.from("not the pinned model, and much shorter than it");
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(SERVED);
});
afterAll(async () => {
  await server.close();
});

/** A working directory whose default model cache ($XDG_CACHE_HOME) and $LITTLE_CANARY_MODEL_DIR lie inside it. */
function sandbox(): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(join(tmpdir(), "lc-model-cli-"));
  return { cwd, env: { XDG_CACHE_HOME: join(cwd, "xdg"), LITTLE_CANARY_MODEL_DIR: join(cwd, "from-env") } };
}

describe("model pull --model-dir", () => {
  it("an empty or blank --model-dir is refused (exit 2) naming the flag, before any directory is created or any request is made", async () => {
    for (const args of [["--model-dir", ""], ["--model-dir="], ["--model-dir", "  "]]) {
      const { cwd, env } = sandbox();
      const before = server.ranges.length;
      const run = await runCli(["model", "pull", ...args, "--from", server.url], { cwd, env });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe("error: --model-dir is empty: give the model directory, or leave --model-dir out to use the default one\n");
      expect(readdirSync(cwd)).toEqual([]);
      expect(server.ranges.length).toBe(before);
    }
  });

  it("an empty $LITTLE_CANARY_MODEL_DIR counts as unset: the pull uses $XDG_CACHE_HOME/little-canary/models", async () => {
    const { cwd, env } = sandbox();
    const run = await runCli(["model", "pull", "--from", server.url], { cwd, env: { ...env, LITTLE_CANARY_MODEL_DIR: "" } });
    // The stand-in serves other bytes than the pinned model: refused, but only after the directory was chosen and created.
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: the server offers \d+ bytes for /);
    expect(readdirSync(cwd)).toEqual(["xdg"]);
    expect(existsSync(join(cwd, "xdg", "little-canary", "models"))).toBe(true);
  });
});

describe("model pull with a partial download the server has no bytes past (HTTP 416)", () => {
  it("discards the partial file, starts over once and says both on stderr (exit 2 when the mirror's file is not the model)", async () => {
    const { cwd, env } = sandbox();
    const dir = join(cwd, "models");
    mkdirSync(dir);
    const model = DEFAULT_EMBEDDED_MODEL;
    const partial = join(dir, `.${model.file}.${model.sha256.slice(0, 16)}.partial`);
    writeFileSync(partial, Buffer.alloc(SERVED.length + 10));
    const before = server.ranges.length;
    const run = await runCli(["model", "pull", "--model-dir", "models", "--from", server.url], { cwd, env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `error: the server has no bytes of ${model.name} past the ${SERVED.length + 10} an earlier pull kept (HTTP 416), though the model has ${model.size}; ` +
        `that partial download was discarded and the download started over; then the server offers ${SERVED.length} bytes for ${model.name}, not its pinned ${model.size}; nothing was cached\n`,
    );
    expect(server.ranges.slice(before)).toEqual([`bytes=${SERVED.length + 10}-`, null]);
    expect(existsSync(partial)).toBe(false);
  });
});

describe("model pull from a mirror that ignores the Range of a resume (HTTP 200 with the whole file)", () => {
  it("says on stderr that the partial download was discarded and the download started over from byte 0", async () => {
    // No length declared, so the short file is written before the pull finds it is not the model.
    const mirror = await startModelServer(SERVED, { ignoreRange: true, noLength: true });
    try {
      const { cwd, env } = sandbox();
      const dir = join(cwd, "models");
      mkdirSync(dir);
      const model = DEFAULT_EMBEDDED_MODEL;
      writeFileSync(join(dir, `.${model.file}.${model.sha256.slice(0, 16)}.partial`), Buffer.alloc(10));
      const run = await runCli(["model", "pull", "--model-dir", "models", "--from", mirror.url], { cwd, env });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(
        `error: the server ignored the request to resume ${model.name} after the 10 bytes an earlier pull kept and sent the whole file (HTTP 200, not 206); ` +
          `that partial download was discarded and the download started over; then the download of ${model.name} from ${mirror.url} was interrupted after ` +
          `${SERVED.length} bytes (the server closed the transfer early); the partial file is kept: run model pull again to resume it\n`,
      );
      expect(mirror.ranges).toEqual(["bytes=10-"]);
    } finally {
      await mirror.close();
    }
  });
});
