// Preloaded into a measured child process (`node --import …/_peak-rss.js …`): when the process
// exits, however it exits (a natural end or process.exit), its peak resident set size in KiB
// (`process.resourceUsage().maxRSS`) is written to the file named by LC_PEAK_RSS_FILE. It lets a
// benchmark measure the real CLI entry without importing cli/.
import { writeFileSync } from "node:fs";

const target = process.env["LC_PEAK_RSS_FILE"];
if (target !== undefined && target !== "") {
  process.once("exit", () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
