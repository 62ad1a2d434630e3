// Runs a command-hook script the way a host does: a real `node <script>` child process with the
// hook input on stdin and only the environment given (nothing inherited but PATH), collecting
// stdout, stderr and the exit code.
import { spawn } from "node:child_process";

export interface HookRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
}

export function runHook(script: string, stdin: string | Buffer, env: Record<string, string> = {}, cwd?: string): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    // The hook may stop reading early (oversize input); a broken pipe on our side is expected.
    child.stdin.on("error", () => {});
    child.on("close", (code) => resolve({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), code }));
    child.stdin.end(stdin);
  });
}

export function hookInput(event: string, prompt: unknown): string {
  return JSON.stringify({ session_id: "s-1", hook_event_name: event, prompt });
}
