// Runs the built CLI in a child process under /usr/bin/time, so a benchmark reads the child's
// own peak RSS (the kernel's maximum resident set size), CPU time and wall time, not its own.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** What one CLI run did. */
export interface ChildRun {
  readonly exitCode: number;
  readonly seconds: number;
  readonly peakRssMb: number;
  /** User plus system CPU seconds of the child (all its threads): what the run costs in cores. */
  readonly cpuSeconds: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `little-canary ARGS` with `/usr/bin/time -f %M`; stdout kept (up to 1 MiB), stderr's tail kept. */
export function runCliMeasured(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ChildRun> {
  const started = process.hrtime.bigint();
  const child = spawn("/usr/bin/time", ["-f", "peak_rss_kb=%M cpu_s=%U+%S", process.execPath, CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    if (stdout.length < 1 << 20) stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-65536);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const match = /peak_rss_kb=(\d+)/.exec(stderr);
      const cpu = /cpu_s=([\d.]+)\+([\d.]+)/.exec(stderr);
      const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : Number.NaN;
      resolve({ exitCode: code ?? -1, seconds, peakRssMb: match ? Number(match[1]) / 1024 : Number.NaN, cpuSeconds, stdout, stderr });
    });
  });
}
