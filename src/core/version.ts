// The package version, read once from package.json (found by walking up from this module, so it
// works from src/ under tests and from dist/src/ when installed).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name === "little-canary" && typeof manifest.version === "string") return manifest.version;
    } catch {
      // Not here; keep walking up.
    }
    dir = dirname(dir);
  }
  return "0.0.0";
}

/** The package version. */
export const VERSION: string = findVersion();
