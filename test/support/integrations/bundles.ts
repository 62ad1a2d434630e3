// The checked-in host bundles (integrations/<host>/...mjs), loaded the way a host loads them and
// typed as the TypeScript entry they were built from (the freshness test in build.test.ts keeps
// the two identical).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The repository's integrations/ folder. */
const INTEGRATIONS_DIR = resolve(import.meta.dirname, "../../../integrations");

async function load<T>(relative: string): Promise<T> {
  return (await import(pathToFileURL(resolve(INTEGRATIONS_DIR, relative)).href)) as T;
}

/** integrations/opencode/index.mjs */
export const openCodeBundle = (): Promise<typeof import("../../../src/integrations/opencode/entry.js")> => load("opencode/index.mjs");
/** integrations/pi/index.mjs */
export const piBundle = (): Promise<typeof import("../../../src/integrations/pi/entry.js")> => load("pi/index.mjs");
/** integrations/openclaw/index.mjs */
export const openClawBundle = (): Promise<typeof import("../../../src/integrations/openclaw/entry.js")> => load("openclaw/index.mjs");
