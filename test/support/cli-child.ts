// Runs the CLI as a real child process, for behaviour that only a real process shows (a closed
// stdout pipe, signals). The CLI is bundled once per test file from the current sources with Vite
// (a dev dependency), so these tests never depend on a stale `dist/`.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "vite";

const REPO = resolve(import.meta.dirname, "../..");

export interface BundledCli {
  readonly entry: string;
  dispose(): Promise<void>;
}

// A native addon cannot be bundled (it loads its binary relative to its own files): it stays an
// import of the installed package, by absolute URL since the bundle lives outside the repository.
const NATIVE = ["better-sqlite3"];
const nativePaths = (): Record<string, string> => {
  const require = createRequire(join(REPO, "package.json"));
  return Object.fromEntries(NATIVE.map((name) => [name, pathToFileURL(require.resolve(name)).href]));
};

/** Bundles cli/main.ts (dependencies included, native addons imported from node_modules) into a temp directory. */
export async function bundleCli(): Promise<BundledCli> {
  return bundleScript(join(REPO, "cli/main.ts"));
}

/** Bundles one TypeScript entry script of this repository the same way, for a test's child process. */
export async function bundleScript(entryPath: string): Promise<BundledCli> {
  const outDir = await mkdtemp(join(tmpdir(), "lc-cli-bundle-"));
  await build({
    root: REPO,
    configFile: false,
    logLevel: "silent",
    ssr: { noExternal: true },
    build: {
      ssr: entryPath,
      outDir,
      emptyOutDir: true,
      minify: false,
      target: "node20",
      rollupOptions: { external: NATIVE, output: { format: "es", entryFileNames: "main.js", paths: nativePaths() } },
    },
  });
  return { entry: join(outDir, "main.js"), dispose: () => rm(outDir, { recursive: true, force: true }) };
}

export interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ChildOptions {
  readonly cwd: string;
  readonly stdin?: string;
  /** Close our end of the child's stdout before it writes anything (a reader that went away). */
  readonly closeStdout?: boolean;
  /** Read this many bytes of the child's stdout, then close our end (`| head -c N`). */
  readonly closeStdoutAfter?: number;
  readonly env?: Record<string, string>;
}

export function runChild(cli: BundledCli, args: readonly string[], options: ChildOptions): Promise<ChildRun> {
  return runCommand(process.execPath, [cli.entry, ...args], options);
}

/** Runs any command the same way (a shell script of the examples, say), with PATH and `env` only. */
export function runCommand(command: string, args: readonly string[], options: ChildOptions): Promise<ChildRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let read = 0;
    if (options.closeStdout) child.stdout.destroy();
    else
      child.stdout.on("data", (chunk: Buffer) => {
        out.push(chunk);
        read += chunk.length;
        if (options.closeStdoutAfter !== undefined && read >= options.closeStdoutAfter) child.stdout.destroy();
      });
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.stdin.on("error", () => {});
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolvePromise({ code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") }),
    );
    child.stdin.end(options.stdin ?? "");
  });
}
