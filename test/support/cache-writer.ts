// A child process for the verdict cache's multi-process tests (bundled by test/cache with
// bundleScript): `main.js CACHE PREFIX COUNT DELAY_MS` puts COUNT exercised verdicts for the
// texts `PREFIX-0` .. `PREFIX-<COUNT-1>` under testIdentity(), and writes each index to stdout
// only after its put returned (so every index the parent read is a completed put), then "done".
// With a fifth argument GO_FILE it writes "ready" once the cache is open and waits for that file
// to exist before the first put, so the parent can start two writers at the same moment; with a
// sixth argument OTHER it waits after its first put for OTHER-0 to be stored and says "overlapping".
import { existsSync, writeSync } from "node:fs";
import { VerdictCache } from "../../src/cache/verdict-cache.js";
import { sha256Hex } from "../../src/core/hash.js";
import { testIdentity } from "./cache-identity.js";

const [path, prefix, countText, delayText, goFile, otherPrefix] = process.argv.slice(2);
const count = Number(countText);
const delayMs = Number(delayText ?? "0");
const identity = testIdentity();
const pause = new Int32Array(new SharedArrayBuffer(4));
const cache = VerdictCache.open(path as string);
if (goFile !== undefined) {
  writeSync(1, "ready\n");
  const deadline = Date.now() + 30_000;
  while (!existsSync(goFile) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 2);
}
for (let i = 0; i < count; i++) {
  cache.put({ textSha256: sha256Hex(`${prefix}-${i}`), identity, state: "pass", exercised: true, value: { writer: prefix, i } });
  writeSync(1, `${i}\n`);
  if (i === 0 && otherPrefix !== undefined) {
    // With a sixth argument OTHER: after its first put, wait until the other writer's first put
    // is in the file, so the two really write at once however the system schedules them.
    const deadline = Date.now() + 30_000;
    while (cache.get(sha256Hex(`${otherPrefix}-0`), identity.key) === null && Date.now() < deadline) Atomics.wait(pause, 0, 0, 1);
    writeSync(1, "overlapping\n");
  }
  if (delayMs > 0) Atomics.wait(pause, 0, 0, delayMs);
}
cache.close();
writeSync(1, "done\n");
