// Records benchmark figures in docs/performance.md, only when the run was asked to with
// `--write-doc` (a tracked file must never change because someone measured something). Each
// benchmark rewrites only its own section, between `<!-- bench:<name>:start -->` and
// `<!-- bench:<name>:end -->`, and states the machine it ran on. Other sections and the
// hand-written text around them are left as they are. Without the flag the figures are printed
// and the document is not touched.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** dist/bench/_perf-doc.js → repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DOC = resolve(REPO_ROOT, "docs/performance.md");

const PREAMBLE = `# Performance

Figures below are written by the benchmark scripts themselves (\`npm run build\`, then
\`npm run bench:<name> -- --write-doc\`); each script rewrites only its own section. Benchmarks that need a canary
talk to a loopback stand-in for Ollama (\`bench/_standin.ts\`), which answers after a fixed latency:
**stand-in figures measure little-canary's own scheduling and overhead, not any model.** No model
runs on the machines these figures come from.
`;

export function machineLine(): string {
  const cpu = cpus();
  const model = (cpu[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim();
  // The load average matters on shared machines: other processes' work shows up as our latency.
  const load = loadavg()
    .map((v) => v.toFixed(2))
    .join(" / ");
  return (
    `${cpu.length} × ${model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.versions.node}, ` +
    `${process.platform}/${process.arch}, load average (1/5/15 min) ${load}`
  );
}

/** The flag that lets a benchmark rewrite its section of docs/performance.md. */
export const WRITE_DOC_FLAG = "--write-doc";

/** Whether this run was asked to record its figures (`--write-doc` on the command line). */
export function writeDocRequested(argv: readonly string[] = process.argv.slice(2)): boolean {
  return argv.includes(WRITE_DOC_FLAG);
}

/**
 * Rewrites the benchmark's section of docs/performance.md when `--write-doc` was given (or
 * `options.write` says so); otherwise leaves the file alone and says how to record the figures.
 */
export function writeSection(name: string, body: string, options: { readonly write?: boolean } = {}): void {
  if (!(options.write ?? writeDocRequested())) {
    process.stderr.write(`bench:${name}: figures printed only; docs/performance.md not changed (pass ${WRITE_DOC_FLAG} to record them)\n`);
    return;
  }
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${body.trimEnd()}\n${end}`;
  const current = existsSync(DOC) ? readFileSync(DOC, "utf8") : PREAMBLE;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from >= 0 && to > from ? `${current.slice(0, from)}${section}${current.slice(to + end.length)}` : `${current.trimEnd()}\n\n${section}\n`;
  const temporary = `${DOC}.${process.pid}.tmp`;
  writeFileSync(temporary, next, "utf8");
  renameSync(temporary, DOC);
  process.stderr.write(`bench:${name}: section written to docs/performance.md\n`);
}

/** Writes a standard section: title, what was measured, the machine, and the printed lines. */
export function recordBench(name: string, title: string, description: string, lines: readonly string[]): void {
  writeSection(
    name,
    `## bench:${name} — ${title}\n\n${description}\n\nMachine: ${machineLine()}. Generated ${new Date().toISOString().slice(0, 10)}.\n\n\`\`\`\n${lines.join("\n")}\n\`\`\``,
  );
}

/** From now on, every console.log line is also kept in the returned array (still printed). */
export function recordPrintedLines(): string[] {
  const printed: string[] = [];
  const print = console.log;
  console.log = (...parts: unknown[]): void => {
    printed.push(parts.map(String).join(" "));
    print(...parts);
  };
  return printed;
}
