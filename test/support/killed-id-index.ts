// A child process for the killed-run leftovers test (bundled by test/ingest with bundleScript):
// `main.js TARGET COUNT` creates the run's id index beside TARGET exactly as `ingest` does
// (IdIndex at scratchPathFor(TARGET, "ids")), records COUNT ids, then kills itself with SIGKILL,
// so the parent sees what a real killed run leaves on disk (the index and SQLite's journal).
import { IdIndex } from "../../src/cache/id-index.js";
import { scratchPathFor } from "../../src/publish/scratch-file.js";

const [target, countText] = process.argv.slice(2);
const ids = IdIndex.createAt(scratchPathFor(target as string, "ids"));
for (let i = 0; i < Number(countText); i++) ids.firstIndex(`record-${i}`, i);
process.kill(process.pid, "SIGKILL");
