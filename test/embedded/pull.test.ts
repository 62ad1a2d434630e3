import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ModelPullError, pullModel } from "../../src/canary/embedded-download.js";
import { cachedModelPath, type PinnedModel } from "../../src/canary/embedded-models.js";
import { type ModelServer, type ModelServerOptions, startModelServer } from "../support/model-server.js";
import { tinyGguf } from "../../scripts/tiny-gguf-model.js";
import { runCli } from "../support/cli.js";
import { refusedUrl } from "../support/free-port.js";

const BYTES = tinyGguf();
const SHA = createHash("sha256").update(BYTES).digest("hex");
const servers: ModelServer[] = [];

async function serve(options: ModelServerOptions = {}): Promise<ModelServer> {
  const server = await startModelServer(BYTES, options);
  servers.push(server);
  return server;
}

function spec(server: ModelServer, overrides: Partial<PinnedModel> = {}): PinnedModel {
  return { name: "tiny", file: "tiny.gguf", url: server.url, sha256: SHA, size: BYTES.length, license: "none (generated)", ...overrides };
}

/** A progress callback that cuts the server's connections once the pull has written `bytes`. */
const cutAt =
  (server: ModelServer, bytes: number) =>
  (received: number): void => {
    if (received >= bytes) server.cut();
  };

const freshDir = (): string => join(mkdtempSync(join(tmpdir(), "lc-pull-")), "models");

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("model pull", () => {
  it("downloads, verifies the pinned SHA-256 and caches the file atomically", async () => {
    const server = await serve();
    const dir = freshDir();
    const seen: number[] = [];
    const result = await pullModel({ model: spec(server), dir, onProgress: (received) => seen.push(received) });
    expect(result).toMatchObject({ sha256: SHA, bytes: BYTES.length, resumedFrom: 0, alreadyPresent: false });
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
    expect(seen.at(-1)).toBe(BYTES.length);
    expect(readdirSync(dir).filter((name) => name.includes("partial"))).toEqual([]);
    const again = await pullModel({ model: spec(server), dir });
    expect(again.alreadyPresent).toBe(true);
    expect(server.ranges).toEqual([null]);
  });

  it("a FIFO, /dev/zero or a directory at the model's path is refused, naming the path, never hashed", async () => {
    const server = await serve();
    const model = spec(server);
    const dir = freshDir();
    const target = cachedModelPath(dir, model);
    mkdirSync(dir, { recursive: true });
    execFileSync("mkfifo", [target]);
    await expect(pullModel({ model, dir })).rejects.toThrow(/the model's path .* is not a regular file: remove it, or pass --model-dir another directory/);
    rmSync(target);
    symlinkSync("/dev/zero", target);
    await expect(pullModel({ model, dir })).rejects.toThrow(/is not a regular file/);
    rmSync(target);
    mkdirSync(target);
    await expect(pullModel({ model, dir })).rejects.toThrow(/the model's path .* is a directory/);
  });

  it("a connection cut mid-stream keeps the partial file, and the next pull resumes it with a Range request", async () => {
    const server = await serve({ stallAfterBytes: 50_000 });
    const dir = freshDir();
    await expect(pullModel({ model: spec(server), dir, onProgress: cutAt(server, 50_000) })).rejects.toThrow(
      /interrupted after \d+ bytes \(.+\); the partial file is kept: run model pull again to resume it/,
    );
    expect(existsSync(join(dir, "tiny.gguf"))).toBe(false);
    const result = await pullModel({ model: spec(server), dir });
    expect(result.resumedFrom).toBeGreaterThan(0);
    expect(server.ranges[1]).toBe(`bytes=${result.resumedFrom}-`);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("a server that ignores the range sends the whole file again, and the pull starts over", async () => {
    const server = await serve({ stallAfterBytes: 40_000 });
    const dir = freshDir();
    await expect(pullModel({ model: spec(server), dir, onProgress: cutAt(server, 40_000) })).rejects.toBeInstanceOf(ModelPullError);
    server.options.ignoreRange = true;
    const result = await pullModel({ model: spec(server), dir });
    expect(result.resumedFrom).toBe(0);
    // The bytes the first pull kept were thrown away and written again from byte 0: the result says so, as for any discard.
    expect(result.discardedPartial).toMatchObject({ code: "range_ignored" });
    expect(result.discardedPartial?.bytes).toBeGreaterThan(0);
    expect(server.ranges[1]).toBe(`bytes=${result.discardedPartial?.bytes}-`);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("bytes with another SHA-256 never become the cached model, and no partial is kept", async () => {
    const server = await serve();
    const dir = freshDir();
    const wrong = spec(server, { sha256: "0".repeat(64) });
    const error = await pullModel({ model: wrong, dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPullError);
    expect((error as ModelPullError).code).toBe("verification");
    expect((error as Error).message).toMatch(/SHA-256 is [0-9a-f]{64}, not the pinned 0{64}; nothing was cached/);
    expect(readdirSync(dir).filter((name) => !name.endsWith(".lock"))).toEqual([]);
  });

  it("a server that declares another size than the pinned one is refused before anything is kept", async () => {
    const server = await serve();
    const dir = freshDir();
    const error = await pullModel({ model: spec(server, { size: BYTES.length + 1 }), dir }).catch((e: unknown) => e);
    expect((error as ModelPullError).code).toBe("verification");
    expect((error as Error).message).toBe(`the server offers ${BYTES.length} bytes for tiny, not its pinned ${BYTES.length + 1}; nothing was cached`);
    expect(readdirSync(dir).filter((name) => !name.endsWith(".lock"))).toEqual([]);
  });

  it("more bytes than the pinned size are refused while they arrive", async () => {
    const server = await serve({ noLength: true });
    const dir = freshDir();
    await expect(pullModel({ model: spec(server, { size: 1000 }), dir })).rejects.toThrow(/larger than its pinned 1000 bytes/);
    expect(existsSync(join(dir, "tiny.gguf"))).toBe(false);
  });

  it("a stalled transfer is aborted after the idle timeout and resumed later", async () => {
    const server = await serve({ stallAfterBytes: 30_000 });
    const dir = freshDir();
    await expect(pullModel({ model: spec(server), dir, idleTimeoutMs: 300 })).rejects.toThrow(/no data for 0.3s/);
    const result = await pullModel({ model: spec(server), dir });
    expect(result.resumedFrom).toBe(30_000);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("a symlink planted at the partial file's name is removed, never written through or read as a prefix", async () => {
    const server = await serve();
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    const victim = join(dir, "..", "victim.txt");
    writeFileSync(victim, "VICTIM");
    symlinkSync(victim, join(dir, `.tiny.gguf.${SHA.slice(0, 16)}.partial`));
    const result = await pullModel({ model: spec(server), dir });
    expect(result.resumedFrom).toBe(0);
    expect(server.ranges).toEqual([null]);
    expect(readFileSync(victim, "utf8")).toBe("VICTIM");
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("a model directory that a file is in the way of is named as such, not as an unexpected failure", async () => {
    const server = await serve();
    const parent = mkdtempSync(join(tmpdir(), "lc-pull-"));
    const file = join(parent, "models");
    writeFileSync(file, "not a directory");
    for (const dir of [file, join(file, "sub")]) {
      const error = await pullModel({ model: spec(server), dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelPullError);
      expect((error as Error).message).toBe(`cannot use the model directory ${dir} (a file is in its way): pass --model-dir a directory you can write`);
    }
    expect(server.ranges).toEqual([]);
  });

  // Node 20's recursive mkdir retries forever where mkdir answers ENOENT although the parent exists, as /proc does.
  it.skipIf(!existsSync("/proc/self"))(
    "a model directory under /proc, where no directory can be made, is refused at once, naming --model-dir and the path",
    async () => {
      const server = await serve();
      for (const dir of ["/proc/lc-no-such-dir", "/proc/lc-no-such-dir/models"]) {
        const error = await pullModel({ model: spec(server), dir }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ModelPullError);
        expect((error as ModelPullError).code).toBe("io");
        expect((error as Error).message).toMatch(
          new RegExp(`^cannot use the model directory ${dir} \\(cannot create a directory in /proc: E[A-Z]+\\): pass --model-dir a directory you can write$`),
        );
      }
      expect(server.ranges).toEqual([]);
    },
  );

  it("missing parents of the model directory are created, one level at a time", async () => {
    const server = await serve();
    const dir = join(freshDir(), "a", "b");
    const result = await pullModel({ model: spec(server), dir });
    expect(result.path).toBe(join(dir, "tiny.gguf"));
    expect(readFileSync(result.path).equals(BYTES)).toBe(true);
  });

  it("an HTTP error names the URL that answered it: the redirect's target, without its query, never the body", async () => {
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/moved") === true) res.writeHead(404, { "content-type": "text/plain" }).end("body-SECRET");
      else res.writeHead(302, { location: "/moved/tiny.gguf?token=s3cret" }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const model: PinnedModel = { name: "tiny", file: "tiny.gguf", url: `${origin}/tiny.gguf`, sha256: SHA, size: BYTES.length, license: "none" };
      const error = await pullModel({ model, dir: freshDir() }).catch((e: unknown) => e);
      expect((error as ModelPullError).code).toBe("io");
      expect((error as Error).message).toBe(`the model server at ${origin}/moved/tiny.gguf answered HTTP 404 for tiny; nothing was cached`);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a wrong file already at the target is replaced by the verified download", async () => {
    const server = await serve();
    const dir = freshDir();
    await pullModel({ model: spec(server), dir });
    writeFileSync(join(dir, "tiny.gguf"), "not the model");
    const result = await pullModel({ model: spec(server), dir });
    expect(result.alreadyPresent).toBe(false);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });
});

describe("model pull when the server has no bytes past the partial file (HTTP 416)", () => {
  const partialOf = (dir: string): string => join(dir, `.tiny.gguf.${SHA.slice(0, 16)}.partial`);
  const withPartial = (bytes: Buffer): string => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(partialOf(dir), bytes);
    return dir;
  };
  const corrupted = (): Buffer => {
    const copy = Buffer.from(BYTES);
    copy[100] = (copy[100] ?? 0) ^ 0xff;
    return copy;
  };

  it("a partial file holding the whole model (its rename was interrupted) is installed after its SHA-256 is checked, pinned size or not", async () => {
    for (const size of [BYTES.length, null]) {
      const server = await serve();
      const dir = withPartial(BYTES);
      const result = await pullModel({ model: spec(server, { size }), dir });
      expect(result).toMatchObject({ sha256: SHA, bytes: BYTES.length, resumedFrom: BYTES.length, alreadyPresent: false, discardedPartial: null });
      expect(server.ranges).toEqual([`bytes=${BYTES.length}-`]);
      expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
      expect(existsSync(partialOf(dir))).toBe(false);
    }
  });

  it("a partial file as long as the model but with other bytes is never installed: it is discarded and the download starts over once", async () => {
    const server = await serve();
    const dir = withPartial(corrupted());
    const result = await pullModel({ model: spec(server), dir });
    expect(result.resumedFrom).toBe(0);
    expect(result.discardedPartial).toEqual({
      bytes: BYTES.length,
      code: "wrong_sha256",
      message: `an earlier pull kept ${BYTES.length} bytes of tiny and the server has no more (HTTP 416), but they do not hash to the pinned SHA-256; that partial download was discarded and the download started over`,
    });
    expect(server.ranges).toEqual([`bytes=${BYTES.length}-`, null]);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("a wrong mirror that declares another size leaves an earlier pull's partial file for the next pull, and says so", async () => {
    const server = await serve({ ignoreRange: true });
    const dir = withPartial(BYTES.subarray(0, 500));
    const error = await pullModel({ model: spec(server, { size: BYTES.length + 1 }), dir }).catch((e: unknown) => e);
    expect((error as ModelPullError).code).toBe("verification");
    expect((error as Error).message).toBe(
      `the server offers ${BYTES.length} bytes for tiny, not its pinned ${BYTES.length + 1}; nothing was cached; the 500 bytes an earlier pull kept are left for the next pull to resume`,
    );
    const left = readdirSync(dir).filter((name) => !name.endsWith(".lock"));
    expect(left).toHaveLength(1);
    expect(readFileSync(join(dir, left[0] as string)).equals(BYTES.subarray(0, 500))).toBe(true);
  });

  it("a partial file longer than a truncated mirror's file is discarded, the pull starts over once and is refused; the next pull is not stuck on 416", async () => {
    const server = await startModelServer(BYTES.subarray(0, 1000));
    servers.push(server);
    const dir = withPartial(BYTES.subarray(0, 2000));
    const error = await pullModel({ model: spec(server), dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPullError);
    expect((error as ModelPullError).code).toBe("verification");
    expect((error as Error).message).toBe(
      `the server has no bytes of tiny past the 2000 an earlier pull kept (HTTP 416), though the model has ${BYTES.length}; ` +
        `that partial download was discarded and the download started over; then the server offers 1000 bytes for tiny, not its pinned ${BYTES.length}; nothing was cached`,
    );
    expect(server.ranges).toEqual(["bytes=2000-", null]);
    expect(readdirSync(dir).filter((name) => !name.endsWith(".lock"))).toEqual([]);
    await expect(pullModel({ model: spec(server), dir })).rejects.toThrow(/^the server offers 1000 bytes for tiny/);
    expect(server.ranges).toEqual(["bytes=2000-", null, null]);
  });

  it("a server that answers 416 to every request is asked twice, never in a loop, and nothing is installed", async () => {
    const ranges: (string | null)[] = [];
    const server = createServer((req, res) => {
      ranges.push(req.headers.range ?? null);
      res.writeHead(416, { "content-range": "bytes */10" }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.gguf`;
      const dir = withPartial(BYTES.subarray(0, 500));
      const model: PinnedModel = { name: "tiny", file: "tiny.gguf", url, sha256: SHA, size: BYTES.length, license: "none" };
      const error = await pullModel({ model, dir }).catch((e: unknown) => e);
      expect((error as ModelPullError).code).toBe("io");
      expect((error as Error).message).toMatch(
        new RegExp(`; then the model server at ${url.replace(/[.]/g, "\\.")} answered HTTP 416 for tiny; nothing was cached$`),
      );
      expect(ranges).toEqual(["bytes=500-", null]);
      expect(existsSync(join(dir, "tiny.gguf"))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a partial file longer than the pinned size is discarded before any request, and the result says so", async () => {
    const server = await serve();
    const dir = withPartial(Buffer.concat([BYTES, Buffer.from("extra")]));
    const result = await pullModel({ model: spec(server), dir });
    expect(result.discardedPartial).toMatchObject({ bytes: BYTES.length + 5, code: "longer_than_pinned" });
    expect(result.discardedPartial?.message).toMatch(/more than its pinned \d+; that partial download was discarded and the download started over$/);
    expect(server.ranges).toEqual([null]);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });

  it("a server that answers a Range with 200 and the whole file, declaring no length, never has it appended after the partial file", async () => {
    const server = await serve({ ignoreRange: true, noLength: true });
    // Wrong bytes and no pinned size: only writing the file from byte 0 yields the pinned SHA-256.
    const dir = withPartial(Buffer.alloc(5000, 0x41));
    const result = await pullModel({ model: spec(server, { size: null }), dir });
    expect(result).toMatchObject({ resumedFrom: 0, bytes: BYTES.length });
    expect(result.discardedPartial).toEqual({
      bytes: 5000,
      code: "range_ignored",
      message:
        "the server ignored the request to resume tiny after the 5000 bytes an earlier pull kept and sent the whole file (HTTP 200, not 206); " +
        "that partial download was discarded and the download started over",
    });
    expect(server.ranges).toEqual(["bytes=5000-"]);
    expect(readFileSync(join(dir, "tiny.gguf")).equals(BYTES)).toBe(true);
  });
});

describe("model pull without a network", () => {
  const offline = (code: string): typeof fetch =>
    (async () => {
      // As undici rejects: a TypeError whose cause carries the socket error's code.
      throw new TypeError("fetch failed", { cause: Object.assign(new Error(`getaddrinfo ${code} example.invalid`), { code }) });
    }) as typeof fetch;
  const model: PinnedModel = {
    name: "tiny",
    file: "tiny.gguf",
    url: "https://models.example/qwen/tiny.gguf?token=s3cret",
    sha256: SHA,
    size: BYTES.length,
    license: "none",
  };

  it("a DNS failure names the URL and the cause, says nothing about resuming, and points at --from and the model directory", async () => {
    const dir = freshDir();
    const error = await pullModel({ model, dir, fetch: offline("ENOTFOUND") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPullError);
    const message = (error as Error).message;
    expect(message).toBe(
      "the download of tiny from https://models.example/qwen/tiny.gguf failed (DNS failure, ENOTFOUND); nothing was downloaded; " +
        `fix: check the network, or pass --from MIRROR (a copy of the file at another URL), or copy tiny.gguf (SHA-256 ${SHA}) into the model directory ${JSON.stringify(dir)} by hand`,
    );
    expect(message).not.toContain("resume");
    expect(message).not.toContain("s3cret");
    expect(readdirSync(dir)).not.toContain("tiny.gguf");
  });

  it("EAI_AGAIN is a DNS failure too, and a certificate error is a TLS failure", async () => {
    await expect(pullModel({ model, dir: freshDir(), fetch: offline("EAI_AGAIN") })).rejects.toThrow("failed (DNS failure, EAI_AGAIN); nothing was downloaded");
    await expect(pullModel({ model, dir: freshDir(), fetch: offline("CERT_HAS_EXPIRED") })).rejects.toThrow("failed (TLS failure, CERT_HAS_EXPIRED)");
  });

  it("a refused port on 127.0.0.1 says nothing is listening at that address and port, and to check the server and the port, not the network", async () => {
    const origin = await refusedUrl();
    const at = origin.slice("http://".length);
    const url = `${origin}/tiny.gguf`;
    const error = await pullModel({ model: { ...model, url }, dir: freshDir() }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^the download of tiny from ${url.replace(/[.]/g, "\\.")} failed \\(connection refused, ECONNREFUSED: nothing is listening at ${at.replace(/[.]/g, "\\.")}\\); ` +
          `nothing was downloaded; fix: check that the server at ${at.replace(/[.]/g, "\\.")} is running and that the port is right, or pass --from MIRROR `,
      ),
    );
    expect((error as Error).message).not.toContain("check the network");
  });

  it("a redirect to a port nothing listens on names the redirect's address and port, not the URL's", async () => {
    const refused = (await refusedUrl()).slice("http://".length);
    const server = createServer((_req, res) => res.writeHead(302, { location: `http://${refused}/tiny.gguf` }).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tiny.gguf`;
      const error = await pullModel({ model: { ...model, url }, dir: freshDir() }).catch((e: unknown) => e);
      expect((error as Error).message).toContain(`failed (connection refused, ECONNREFUSED: nothing is listening at ${refused}); `);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a DNS failure of a redirect's target names that host, not the URL the user gave", async () => {
    // As undici rejects after following a redirect to a host without an address: the lookup error names the host it looked up.
    const lookupFailed = (async () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("getaddrinfo ENOTFOUND cdn.mirror.invalid"), {
          code: "ENOTFOUND",
          syscall: "getaddrinfo",
          hostname: "cdn.mirror.invalid",
        }),
      });
    }) as typeof fetch;
    const message = ((await pullModel({ model, dir: freshDir(), fetch: lookupFailed }).catch((e: unknown) => e)) as Error).message;
    expect(message).toContain(
      "from https://models.example/qwen/tiny.gguf failed (DNS failure, ENOTFOUND: no address found for cdn.mirror.invalid, where the download was redirected); " +
        "nothing was downloaded; fix: check the host name cdn.mirror.invalid and the network, or pass --from MIRROR",
    );
  });

  it("the CLI prints the one line for a --from mirror that refuses, exit 2", async () => {
    const from = `${await refusedUrl()}/mirror/model.gguf`;
    const run = await runCli(["model", "pull", "--model-dir", freshDir(), "--from", from]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: the download of \\S+ from ${from.replace(/[.]/g, "\\.")} failed \\(connection refused, ECONNREFUSED: nothing is listening at [0-9.:]+\\); ` +
          "nothing was downloaded; fix: check that the server at [0-9.:]+ is running and that the port is right, or pass --from MIRROR",
      ),
    );
  });
});
