// Generated JSONL corpora for the scale benchmarks: deterministic (a seeded generator), written
// to a file a line at a time so the generator itself holds nothing. Texts are 200–4,000
// characters of ordinary words with, now and then, non-ASCII words; every fifth record has
// metadata; every record has a unique id. `changedEvery` rewrites the text of one record in
// that many (for the incremental benchmark), keeping every other line byte for byte.
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { seededRandom } from "./_random.js";

const WORDS =
  "the report quarterly revenue shipment customer invoice review policy meeting schedule draft summary figures budget team project update analysis market sales product release notes support ticket résumé naïve café Zürich 東京 données".split(
    " ",
  );

/** The seeded generator the corpora are drawn from. */
export const seeded = seededRandom;

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

/** Options of a generated corpus. */
export interface GeneratedCorpusOptions {
  readonly seed?: number;
  /** Rewrite the end of the text of one record in this many. */
  readonly changedEvery?: number;
  /** The words the rewritten end says (different salts give different changes). */
  readonly changeSalt?: string;
}

/** One generated record and whether its text was rewritten. */
export interface GeneratedRecord {
  readonly index: number;
  readonly record: { readonly id: string; readonly text: string; readonly metadata?: Readonly<Record<string, string>> };
  readonly changed: boolean;
}

/** The records of a generated corpus, one at a time (the same seed gives the same records). */
export function* generatedRecords(records: number, options: GeneratedCorpusOptions = {}): Generator<GeneratedRecord> {
  const random = seeded(options.seed ?? 14);
  for (let index = 0; index < records; index++) {
    const chars = 200 + Math.floor(random() * 3801);
    let text = textOf(random, chars);
    const withMetadata = random() < 0.2;
    const changed = options.changedEvery !== undefined && index % options.changedEvery === options.changedEvery - 1;
    if (changed) text = `${text.slice(0, -12)} ${options.changeSalt ?? "changed"}`;
    const record = withMetadata ? { id: `doc-${index}`, text, metadata: { lang: "en", section: `s${index % 7}` } } : { id: `doc-${index}`, text };
    yield { index, record, changed };
  }
}

/** Writes `records` JSONL records to `path`. */
export async function writeGeneratedCorpus(path: string, records: number, options: GeneratedCorpusOptions = {}): Promise<GeneratedCorpus> {
  const out = createWriteStream(path);
  let bytes = 0;
  let changed = 0;
  for (const generated of generatedRecords(records, options)) {
    if (generated.changed) changed++;
    const line = `${JSON.stringify(generated.record)}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return { records, bytes, changed };
}
