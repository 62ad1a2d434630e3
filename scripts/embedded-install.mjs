// `npm run embedded:install [-- DIR]`: installs the embedded canary's engine, node-llama-cpp at
// the tested release (EMBEDDED_ENGINE_VERSION in src/canary/embedded-engine.ts, read from that
// line: package.json declares a range as the peer, so the tested release is written only there), with the prebuilt binary package for this machine
// only, into DIR (default: $EMBEDDED_ENGINE_DIR, else `.little-canary-engine` beside this
// checkout), and links it into node_modules. It is kept out of package-lock.json on purpose: a
// lockfile entry would make every `npm ci` fetch the CUDA and Vulkan packages (about 730 MB),
// and `npm ci --omit=optional` would also drop the platform binaries of Biome and esbuild.
// `--omit=optional` here skips those GPU packages (about 83 MB in all); `--ignore-scripts` skips
// the engine's postinstall, so nothing is compiled. Ends by loading the binary on the CPU.
// Plain JavaScript (no build step), so CI can run it before `npm run build`.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const engineSource = readFileSync(join(root, "src", "canary", "embedded-engine.ts"), "utf8");
const version = /^export const EMBEDDED_ENGINE_VERSION = "(\d+\.\d+\.\d+)";$/m.exec(engineSource)?.[1];
if (version === undefined) {
  console.error("embedded:install: no EMBEDDED_ENGINE_VERSION line in src/canary/embedded-engine.ts");
  process.exit(1);
}
const PLATFORM = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "darwin-arm64": "mac-arm64-metal",
  "darwin-x64": "mac-x64",
  "win32-x64": "win-x64",
  "win32-arm64": "win-arm64",
};
const platform = PLATFORM[`${process.platform}-${process.arch}`];
if (platform === undefined) {
  console.error(`embedded:install: no prebuilt node-llama-cpp binary for ${process.platform}-${process.arch}`);
  process.exit(1);
}
const dir = resolve(process.argv[2] ?? process.env.EMBEDDED_ENGINE_DIR ?? join(root, "..", ".little-canary-engine"));
mkdirSync(dir, { recursive: true });
if (!existsSync(join(dir, "package.json"))) writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const started = Date.now();
execFileSync(
  npm,
  ["install", "--no-audit", "--no-fund", "--omit=optional", "--ignore-scripts", `node-llama-cpp@${version}`, `@node-llama-cpp/${platform}@${version}`],
  { cwd: dir, stdio: "inherit" },
);

const link = join(root, "node_modules", "node-llama-cpp");
const target = join(dir, "node_modules", "node-llama-cpp");
let existing = null;
try {
  existing = lstatSync(link);
} catch {}
if (existing !== null && !existing.isSymbolicLink()) {
  console.error(`embedded:install: ${link} is a real directory (installed by npm?); remove it first`);
  process.exit(1);
}
if (existing !== null) rmSync(link);
mkdirSync(dirname(link), { recursive: true });
symlinkSync(target, link, "junction");

const engine = await import(pathToFileURL(join(target, "dist", "index.js")).href);
const llama = await engine.getLlama({ gpu: false, build: "never", logLevel: "error" });
await llama.dispose();
console.log(`embedded:install: node-llama-cpp ${version} (${platform}) in ${dir}, linked at ${link}, CPU binary loads (${Date.now() - started} ms)`);
