// Run by `npm run build` after tsc. tsc writes dist/cli/main.js with mode 0644, and npm sets the
// mode of a package's bin only when it installs the package somewhere, not in the package's own
// checkout; without this step `npx little-canary` in a fresh clone fails with "Permission denied".
import { chmodSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** dist/scripts/mark-bin-executable.js → repository root. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { bin } = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { bin: Record<string, string> };
for (const target of Object.values(bin)) chmodSync(resolve(root, target), 0o755);
