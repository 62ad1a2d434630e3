// A downstream consumer of an ingest export (docs/ingest.md, "Pinning and verifying"): the code
// an indexing job runs before it trusts `admitted.json`. It refuses unless the manifest's
// SHA-256 is pinned (or --allow-unpinned is given), verifies the pair with the public library
// (which reads both documents strictly: UTF-8, no BOM, no duplicate key), re-checks every record
// independently, and then hands each admitted record on exactly once, all or nothing.
// It never prints record text, ids, sources or metadata values. It uses only the package's
// public entry point, as a consumer outside this repository would.
//
//   node dist/examples/ingest-consumer.js --manifest manifest.json --export admitted.json \
//     --expect-manifest-sha256 <hex from the ingest summary>
//
// A sharded run (docs/shards.md) is consumed through its index instead: the index's SHA-256 is
// pinned, the index and every pair it lists are verified (verifyShardIndex), each pair is then
// consumed as above against the manifest and export SHA-256s the index records, and the
// records of all shards are handed on, in order of shard and index, only once every shard passed.
//
//   node dist/examples/ingest-consumer.js --index index.json --expect-index-sha256 <hex>
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { IngestIndexSchema, manifestFacts, materialSha256, readStrictDocument, sha256Hex, verifyExport, verifyShardIndex } from "little-canary";

/** A surrogate not part of a pair: with the `u` flag a pair is one code point, so only a lone one matches (String.isWellFormed needs ES2024's lib). */
const LONE_SURROGATE = /\p{Cs}/u;

export interface ConsumedRecord {
  readonly index: number;
  readonly id: string | null;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly text: string;
}

export interface ConsumeOptions {
  readonly manifestPath: string;
  readonly exportPath: string;
  readonly expectManifestSha256?: string;
  /** The export's SHA-256, when it is pinned too (an index records it). */
  readonly expectExportSha256?: string;
  readonly allowUnpinned?: boolean;
}

export type ConsumeOutcome =
  | { readonly ok: true; readonly consumed: readonly number[]; readonly held: ReadonlyArray<{ index: number; reasons: string[] }>; readonly warnings: string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** The file's bytes, exactly as read once: the pin, verification and the records all come from them. */
async function readBytes(path: string, label: string): Promise<Uint8Array | string> {
  try {
    return await readFile(path);
  } catch (error) {
    return `cannot read ${label} (${error instanceof Error ? error.constructor.name : "Error"})`;
  }
}

/** Independent re-check of the export against the manifest (not relying on verifyExport). */
function recheck(exportDoc: unknown, manifestDoc: unknown): { problems: string[]; records: ConsumedRecord[] } {
  const problems: string[] = [];
  const records: ConsumedRecord[] = [];
  if (!isObj(exportDoc) || !isObj(manifestDoc) || !Array.isArray(exportDoc.records) || !Array.isArray(manifestDoc.records)) {
    return { problems: ["export or manifest structure invalid"], records };
  }
  const manifestByIndex = new Map<number, Obj>();
  for (const entry of manifestDoc.records) {
    if (!isObj(entry) || !Number.isSafeInteger(entry.index)) return { problems: ["export or manifest structure invalid"], records };
    if (manifestByIndex.has(entry.index as number)) problems.push(`record ${String(entry.index)}: duplicated in manifest`);
    manifestByIndex.set(entry.index as number, entry);
  }
  const seen = new Set<number>();
  for (const item of exportDoc.records) {
    if (!isObj(item) || !Number.isSafeInteger(item.index)) return { problems: ["export or manifest structure invalid"], records };
    const index = item.index as number;
    if (seen.has(index)) {
      problems.push(`record ${index}: duplicated in export`);
      continue;
    }
    seen.add(index);
    const entry = manifestByIndex.get(index);
    if (entry?.admission !== "admitted" || !Array.isArray(entry.hold_reasons) || entry.hold_reasons.length !== 0) {
      problems.push(`record ${index}: not admitted in manifest`);
      continue;
    }
    const { text, id, source, metadata } = item;
    if (typeof text !== "string" || LONE_SURROGATE.test(text) || !isObj(metadata) || Object.values(metadata).some((v) => typeof v !== "string")) {
      problems.push("export or manifest structure invalid");
      continue;
    }
    const labels = { id: typeof id === "string" ? id : null, source: typeof source === "string" ? source : null };
    if (sha256Hex(text) !== entry.sha256 || sha256Hex(text) !== item.sha256) problems.push(`record ${index}: sha256 does not match the text`);
    const material = materialSha256({ ...labels, metadata: metadata as Record<string, string>, text });
    if (material !== entry.material_sha256 || material !== item.material_sha256) problems.push(`record ${index}: material_sha256 does not match`);
    records.push({ index, ...labels, metadata: metadata as Record<string, string>, text });
  }
  return { problems, records };
}

/**
 * Verifies and consumes an export. `handOn` is called once per admitted record, in index
 * order, only after every check passed; a refusal calls it for none.
 */
export async function consumeExport(options: ConsumeOptions, handOn: (record: ConsumedRecord) => void): Promise<ConsumeOutcome> {
  const pin = options.expectManifestSha256?.trim().toLowerCase();
  if (!pin && !options.allowUnpinned) {
    return { ok: false, problems: ["no --expect-manifest-sha256 given (pass --allow-unpinned to check consistency only)"] };
  }
  const manifest = await readBytes(options.manifestPath, "manifest");
  const exported = await readBytes(options.exportPath, "export");
  const readProblems = [manifest, exported].filter((r): r is string => typeof r === "string");
  if (readProblems.length > 0) return { ok: false, problems: readProblems };
  const m = manifest as Uint8Array;
  const e = exported as Uint8Array;
  const warnings: string[] = [];
  if (pin) {
    if (sha256Hex(m) !== pin) return { ok: false, problems: ["manifest sha256 does not match --expect-manifest-sha256"] };
  } else {
    warnings.push("WARNING: manifest not pinned; only the pair's consistency was checked, not its authenticity");
  }
  if (options.expectExportSha256 !== undefined && sha256Hex(e) !== options.expectExportSha256) {
    return { ok: false, problems: ["export sha256 does not match the one pinned for it"] };
  }
  // Passed as bytes, both documents are parsed strictly by the library: a BOM, invalid UTF-8 or
  // a duplicate key at any depth is a problem, never silently resolved.
  let problems: string[];
  try {
    problems = verifyExport(e, m, { manifestBytes: m }).map((problem) => problem.message);
  } catch (error) {
    problems = [`verification failed (${error instanceof Error ? error.constructor.name : "Error"})`];
  }
  if (problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  // The library's one strict reader: the values are exactly the documents verifyExport checked.
  const decode = (bytes: Uint8Array): unknown => {
    const read = readStrictDocument(bytes);
    if (!read.ok) throw new Error(`unreadable document (${read.code})`);
    return read.value;
  };
  // Either manifest version (v1, or the compact v2): verifyExport accepted it, so its records
  // expand to v1 records, every fact in place, and the re-check reads those.
  const verified = decode(m) as Parameters<typeof manifestFacts>[0];
  const mValue = { ...verified, records: manifestFacts(verified) };
  const independent = recheck(decode(e), mValue);
  if (independent.problems.length > 0) return { ok: false, problems: [...new Set(independent.problems)] };

  const consumed = independent.records.sort((a, b) => a.index - b.index);
  for (const record of consumed) handOn(Object.freeze({ ...record }));
  const held = (mValue.records as unknown as Obj[])
    .filter((entry) => entry.admission !== "admitted")
    .map((entry) => ({ index: entry.index as number, reasons: Array.isArray(entry.hold_reasons) ? (entry.hold_reasons as string[]) : [] }));
  return { ok: true, consumed: consumed.map((record) => record.index), held, warnings };
}

/** A record of a sharded run: which shard it came from, and its index within that shard. */
export interface ConsumedShardRecord extends ConsumedRecord {
  readonly shard: number;
}

export interface ConsumeIndexOptions {
  readonly indexPath: string;
  readonly expectIndexSha256?: string;
  readonly allowUnpinned?: boolean;
}

/**
 * Verifies and consumes every shard of a sharded run through its index. `handOn` is called once
 * per admitted record, in order of shard then index, only after the index and every shard
 * passed; any problem calls it for none. (The records of all shards are held until then: this
 * example trades memory for all-or-nothing.)
 */
export async function consumeIndex(options: ConsumeIndexOptions, handOn: (record: ConsumedShardRecord) => void): Promise<ConsumeOutcome> {
  const pin = options.expectIndexSha256?.trim().toLowerCase();
  if (!pin && !options.allowUnpinned) return { ok: false, problems: ["no --expect-index-sha256 given (pass --allow-unpinned to check consistency only)"] };
  const bytes = await readBytes(options.indexPath, "index");
  if (typeof bytes === "string") return { ok: false, problems: [bytes] };
  const warnings: string[] = [];
  if (pin) {
    if (sha256Hex(bytes) !== pin) return { ok: false, problems: ["index sha256 does not match --expect-index-sha256"] };
  } else warnings.push("WARNING: index not pinned; only the shards' consistency was checked, not their authenticity");
  // The index and every pair it lists, by the library (its read must hash to the same pin).
  const verified = await verifyShardIndex({ index: options.indexPath, expectIndexSha256: pin || sha256Hex(bytes), pinName: "--expect-index-sha256" });
  if (!verified.consistent) return { ok: false, problems: verified.problems.map((problem) => problem.message) };
  const read = readStrictDocument(bytes);
  const parsed = read.ok ? IngestIndexSchema.safeParse(read.value) : null;
  if (!parsed?.success) return { ok: false, problems: ["index structure invalid"] };
  const dir = dirname(options.indexPath);
  const records: ConsumedShardRecord[] = [];
  const held: Array<{ index: number; reasons: string[] }> = [];
  for (const shard of parsed.data.shards) {
    // Each pair again, independently, against the SHA-256s the pinned index records.
    const outcome = await consumeExport(
      {
        manifestPath: resolve(dir, shard.manifest.path),
        exportPath: resolve(dir, shard.export.path),
        expectManifestSha256: shard.manifest.sha256,
        expectExportSha256: shard.export.sha256,
      },
      (record) => records.push({ ...record, shard: shard.k }),
    );
    if (!outcome.ok) return { ok: false, problems: outcome.problems.map((problem) => `shard ${shard.k}/${shard.n}: ${problem}`) };
    held.push(...outcome.held);
  }
  for (const record of records) handOn(Object.freeze({ ...record }));
  return { ok: true, consumed: records.map((record) => record.index), held, warnings };
}

const USAGE =
  "usage: ingest-consumer --manifest M --export E (--expect-manifest-sha256 HEX | --allow-unpinned)\n" +
  "       ingest-consumer --index INDEX (--expect-index-sha256 HEX | --allow-unpinned)\n";

const OPTIONS = {
  manifest: { type: "string" },
  export: { type: "string" },
  "expect-manifest-sha256": { type: "string" },
  index: { type: "string" },
  "expect-index-sha256": { type: "string" },
  "allow-unpinned": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The command line's values, or the exit code after printing usage (help: 0 on stdout; a mistake: 2 on stderr). */
function parsedArgs(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"] | number {
  try {
    const { values } = parseArgs({ options: OPTIONS });
    if (!values.help) return values;
    process.stdout.write(USAGE);
    return 0;
  } catch (error) {
    // An unknown flag or a missing value: say which, then how to call it, never a stack trace.
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
}

async function main(): Promise<number> {
  const values = parsedArgs();
  if (typeof values === "number") return values;
  if (values.index && !values.manifest && !values.export) return mainIndex(values.index, values["expect-index-sha256"], values["allow-unpinned"] === true);
  if (!values.manifest || !values.export) {
    process.stderr.write(USAGE);
    return 2;
  }
  const lines: string[] = [];
  const outcome = await consumeExport(
    {
      manifestPath: values.manifest,
      exportPath: values.export,
      ...(values["expect-manifest-sha256"] ? { expectManifestSha256: values["expect-manifest-sha256"] } : {}),
      allowUnpinned: values["allow-unpinned"] === true,
    },
    // A real consumer would index the record here; the example only reports its size.
    (record) => lines.push(`  consumed record ${record.index} (${Array.from(record.text).length} chars)`),
  );
  if (!outcome.ok) {
    process.stderr.write(`REFUSED: nothing consumed\n${outcome.problems.map((p) => `  - ${p}`).join("\n")}\n`);
    return 2;
  }
  for (const warning of outcome.warnings) process.stderr.write(`${warning}\n`);
  lines.push(`consumed indices (verified against the manifest): [${outcome.consumed.join(", ")}]`);
  for (const held of outcome.held) lines.push(`  held record ${held.index}: ${held.reasons.length > 0 ? held.reasons.join(", ") : "unspecified"}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function mainIndex(indexPath: string, pin: string | undefined, allowUnpinned: boolean): Promise<number> {
  const lines: string[] = [];
  const outcome = await consumeIndex({ indexPath, ...(pin ? { expectIndexSha256: pin } : {}), allowUnpinned }, (record) =>
    lines.push(`  consumed shard ${record.shard} record ${record.index} (${Array.from(record.text).length} chars)`),
  );
  if (!outcome.ok) {
    process.stderr.write(`REFUSED: nothing consumed\n${outcome.problems.map((p) => `  - ${p}`).join("\n")}\n`);
    return 2;
  }
  for (const warning of outcome.warnings) process.stderr.write(`${warning}\n`);
  lines.push(`consumed ${outcome.consumed.length} records from every shard (verified against the pinned index); ${outcome.held.length} held`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main();
}
