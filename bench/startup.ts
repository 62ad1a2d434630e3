// bench:startup — how long the CLI takes to start and finish a short command, as a hook or a CI
// step that calls it once per text pays it. Runs each of `node -e 0` (the floor: Node itself),
// `little-canary --version` and `little-canary check --no-canary --text hello` N times as child
// processes, alternating them so that a change in the machine's load hits all three alike, and
// prints the median wall time of each (and its CPU time, the steadier figure on a busy machine)
// and how far the CLI's are above the floor. Last line:
//   node_ms=… version_ms=… check_ms=… version_over_node_ms=… check_over_node_ms=… target_met=yes|no
// Targets (issue 27): --version within 100 ms of `node -e 0`, the check within 250 ms. The CLI
// run is dist/cli/main.js beside this file (build first), or the one given with --cli PATH.
// Exit status 1 when a target is missed. On a shared machine, read the load average printed with
// the figures: other processes' work shows up as start-up time.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { benchArgs, positiveIntegerArg } from "./_args.js";
import { machineLine } from "./_perf-doc.js";
import { median } from "./_stats.js";

const VERSION_TARGET_MS = 100;
const CHECK_TARGET_MS = 250;

const ARGS = benchArgs(
  "bench:startup",
  "usage: npm run bench:startup [-- --runs 15 --cli PATH]  (BENCH_STARTUP_RUNS also sets --runs)\nexample: npm run bench:startup -- --runs 5",
  { runs: { type: "string" }, cli: { type: "string" } },
);
const runs = positiveIntegerArg("bench:startup", "runs", ARGS.runs ?? process.env.BENCH_STARTUP_RUNS ?? "15");
const cli = ARGS.cli ?? fileURLToPath(new URL("../cli/main.js", import.meta.url));

const CASES: ReadonlyArray<{ readonly name: string; readonly args: readonly string[]; readonly exit: number }> = [
  { name: "node", args: ["-e", "0"], exit: 0 },
  { name: "version", args: [cli, "--version"], exit: 0 },
  // "hello" is safe, but with --no-canary the behavioural layer did not run: exit 2 (unexercised).
  { name: "check", args: [cli, "check", "--no-canary", "--text", "hello"], exit: 2 },
];

/**
 * CPU milliseconds (user + system) of this process's finished children, from /proc (Linux; null
 * elsewhere). Unlike wall time it hardly moves with other processes' load, so on a busy machine
 * it is the steadier figure; it counts clock ticks of 10 ms and V8's helper threads as well.
 */
function childrenCpuMs(): number | null {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
    // cutime and cstime are fields 16 and 17 of stat(5); the split above starts at field 3.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

/** Wall and CPU time of one child run in milliseconds; refuses a run that did not end as expected. */
function timeOnce(args: readonly string[], exit: number): { wall: number; cpu: number | null } {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuAfter = childrenCpuMs();
  if (child.status !== exit) throw new Error(`${args.join(" ")} exited ${child.status} (expected ${exit}): ${child.stderr.slice(0, 400)}`);
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

const times = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
const cpuTimes = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
// One unmeasured round first: the first start reads every file from disk, later ones from cache.
for (const c of CASES) timeOnce(c.args, c.exit);
for (let round = 0; round < runs; round++) {
  for (const c of CASES) {
    const { wall, cpu } = timeOnce(c.args, c.exit);
    times.get(c.name)?.push(wall);
    if (cpu !== null) cpuTimes.get(c.name)?.push(cpu);
  }
}

const ms = (name: string): number => median(times.get(name) ?? []);
const cpuMs = (name: string): number => median(cpuTimes.get(name) ?? []);
const [node, version, check] = [ms("node"), ms("version"), ms("check")];
const fixed = (v: number): string => v.toFixed(0);
console.log(`machine: ${machineLine()}`);
console.log(`runs: ${runs} of each, alternating; cli: ${cli}`);
const shown = (args: readonly string[]): string => (args[0] === cli ? ["little-canary", ...args.slice(1)] : ["node", ...args]).join(" ");
for (const c of CASES) console.log(`${c.name.padEnd(8)} median ${fixed(ms(c.name))} ms wall, ${fixed(cpuMs(c.name))} ms CPU  (${shown(c.args)})`);
const met = version - node <= VERSION_TARGET_MS && check - node <= CHECK_TARGET_MS;
console.log(
  `node_ms=${fixed(node)} version_ms=${fixed(version)} check_ms=${fixed(check)} version_over_node_ms=${fixed(version - node)} ` +
    `check_over_node_ms=${fixed(check - node)} target_met=${met ? "yes" : "no"}`,
);
process.exitCode = met ? 0 : 1;
