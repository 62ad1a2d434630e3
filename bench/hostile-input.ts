// Writes the hostile inputs used to check that reading stays within its memory bound, so they
// never need to be committed. Run after `npm run build`:
//
//   node dist/bench/hostile-input.js reader  /tmp/hostile.jsonl   # 1,000 lines of {"text":[{},{},…]}
//   node dist/bench/hostile-input.js export  /tmp/hostile-export.json  # one {"x":[{},{},…]} document
//   /usr/bin/time -v node dist/cli/main.js screen /tmp/hostile.jsonl   # "Maximum resident set size"
//
// `reader`: every line is just under the screen per-line cap for the default limits (403,456
// bytes, newline included), so the line cap never fires and only the reader's handling of an
// invalid `text` value decides the memory: about 403 MB in all. `export`: a single document
// just under verify's document cap (default about 250 MB; pass a size in MiB as the third
// argument). Both are written in 1 MiB pieces, so the generator itself stays small.

import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { DEFAULT_READER_LIMITS, maxLineBytes } from "../src/documents/reader-limits.js";

const MIB = 1024 * 1024;

async function writeRepeated(path: string, head: string, unit: string, count: number, tail: string, times: number): Promise<number> {
  const out = createWriteStream(path);
  let written = 0;
  const write = async (text: string): Promise<void> => {
    written += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  const perPiece = Math.max(1, Math.floor(MIB / unit.length));
  for (let t = 0; t < times; t++) {
    await write(head);
    let left = count;
    while (left > 0) {
      const n = Math.min(left, perPiece);
      // The last unit of a line has no trailing comma.
      const piece = unit.repeat(n);
      left -= n;
      await write(left === 0 ? piece.slice(0, -1) : piece);
    }
    await write(tail);
  }
  out.end();
  await once(out, "finish");
  return written;
}

async function main(): Promise<void> {
  const [kind, path, size] = process.argv.slice(2);
  if ((kind !== "reader" && kind !== "export") || path === undefined) {
    process.stderr.write("usage: hostile-input.js reader|export PATH [MiB]\n");
    process.exitCode = 2;
    return;
  }
  let bytes: number;
  if (kind === "reader") {
    const cap = maxLineBytes(DEFAULT_READER_LIMITS);
    const head = '{"text":[';
    const tail = "]}\n";
    // Each `{},` is 3 bytes; the last one loses its comma.
    const count = Math.floor((cap - head.length - tail.length + 1) / 3);
    bytes = await writeRepeated(path, head, "{},", count, tail, 1000);
  } else {
    const target = (size === undefined ? 250 : Number(size)) * 1000 * 1000;
    const head = '{"x":[';
    const tail = "]}";
    bytes = await writeRepeated(path, head, "{},", Math.floor((target - head.length - tail.length + 1) / 3), tail, 1);
  }
  process.stdout.write(`${path}: ${bytes} bytes\n`);
}

await main();
