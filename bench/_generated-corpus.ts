// Generated JSONL corpora for the scale benchmarks: deterministic (a seeded generator), written
// to a file a line at a time so the generator itself holds nothing. Texts are 200–4,000
// characters of ordinary words with, now and then, non-ASCII words; every fifth record has
// metadata; every record has a unique id. `changedEvery` rewrites the text of one record in
// that many (for the incremental benchmark), keeping every other line byte for byte.
import { createWriteStream } from "node:fs";
import { once } from "node:events";

const WORDS =
  "the report quarterly revenue shipment customer invoice review policy meeting schedule draft summary figures budget team project update analysis market sales product release notes support ticket résumé naïve café Zürich 東京 données".split(
    " ",
  );

/** A small, fast, seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function textOf(random: () => number, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(random() * WORDS.length)] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ").slice(0, chars);
}

/** What a generated corpus holds. */
export interface GeneratedCorpus {
  readonly records: number;
  readonly bytes: number;
  /** Records whose text differs from the unchanged corpus's. */
  readonly changed: number;
}

/** Writes `records` JSONL records to `path`. */
export async function writeGeneratedCorpus(path: string, records: number, options: { seed?: number; changedEvery?: number; changeSalt?: string } = {}): Promise<GeneratedCorpus> {
  const random = seeded(options.seed ?? 14);
  const out = createWriteStream(path);
  let bytes = 0;
  let changed = 0;
  for (let index = 0; index < records; index++) {
    const chars = 200 + Math.floor(random() * 3801);
    let text = textOf(random, chars);
    const withMetadata = random() < 0.2;
    if (options.changedEvery !== undefined && index % options.changedEvery === options.changedEvery - 1) {
      text = `${text.slice(0, -12)} ${options.changeSalt ?? "changed"}`.slice(0, chars + 20);
      changed++;
    }
    const record: Record<string, unknown> = { id: `doc-${index}`, text };
    if (withMetadata) record["metadata"] = { lang: "en", section: `s${index % 7}` };
    const line = `${JSON.stringify(record)}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return { records, bytes, changed };
}
