// What `little-canary ingest` prints: the summary on stdout (never record text) and the warnings
// a finished run earns on stderr. Data in, lines out; the run itself is `ingestFiles`.
import { describeRange, type ManifestShard } from "../src/documents/shard.js";
import type { IngestRunReport } from "../src/ingest/run-plan.js";
import { EXIT_EXPLANATIONS, HELD_SAMPLE_SIZE, type IngestRunSummary } from "../src/ingest/run-summary.js";
import { canaryOutageWarning, canaryReplyWarning, circuitOpenWarning, type CanaryTarget } from "../src/pipeline/canary-warning.js";
import { reasonBreakdown, reasonList, type ReasonCounts } from "../src/pipeline/reason-tally.js";
import { HOLD_REASONS } from "../src/documents/schemas.js";
import { GENERATED_ID_PREFIX, PROVENANCE_KEY, PROVENANCE_PREFIX } from "../src/documents/reserved-labels.js";
import type { PublishResult } from "../src/publish/publish.js";
import { copyPublishedFile } from "../src/publish/published-copy.js";
import { writeOut, type CliIo } from "./io.js";
import { plural } from "./plural.js";
import { displayText } from "../src/core/display-text.js";

/** Held records listed one per line in the summary; the rest are only counted. */
const SUMMARY_HELD_LIMIT = HELD_SAMPLE_SIZE;

/** `shard K/N: lines A-B of L (range sha256=…)`, for a sharded run's summary. */
function shardLine(shard: ManifestShard): string {
  return `shard ${shard.k}/${shard.n}: ${describeRange(shard)} of ${shard.input_lines} input lines (range sha256=${shard.range_sha256})`;
}

/**
 * What `incomplete` means (record-state.ts): some planned segment was not exercised by the
 * canary. Beside `blocked` it reads like a second problem, so the summary says what it is.
 */
const INCOMPLETE_EXPLANATION =
  "incomplete: some segment of the record was not inspected by the canary (a structural block skips the canary for its segment; after a record's first hold its later segments are not sent; a canary error or a check not sent counts too)";

/** `cache: N segments reused, M checked`: what a run with a verdict cache took from it and what it sent. */
function cacheLine(run: IngestRunSummary["head"]["run"]): string[] {
  if (run.cache === undefined) return [];
  return [`cache: ${plural(run.cache.hits, "segment")} reused, ${run.checks_performed} checked`];
}

/**
 * The summary: nine lines (docs/ingest.md, "The summary"; a sharded run, an allowlist, a verdict
 * cache and an `incomplete` hold reason each add one), then the held records, one `held:` line
 * each (index, 1-based input line, the first 16 hex digits of the id's SHA-256, reasons, and for
 * an over-budget record the limit it exceeds and the flag that raises it), the first 20 and then
 * a count.
 * No record text and no plaintext label of a held record is ever printed.
 */
export function formatIngestSummary(summary: IngestRunSummary, published: PublishResult): string {
  const manifest = summary.head;
  const exitCode = summary.outcome;
  const c = manifest.counts;
  const reasons = HOLD_REASONS.filter((reason) => c.by_reason[reason] > 0).map((reason) => `${reason}=${c.by_reason[reason]}`);
  const lines = [
    `ingest (${manifest.policy.name}): ${plural(manifest.run.records_total, "record")}, ${c.admitted} admitted, ${c.held} held`,
    `hold reasons: ${reasons.length > 0 ? reasons.join(" ") : "none"}`,
    ...(c.by_reason.incomplete > 0 ? [INCOMPLETE_EXPLANATION] : []),
    ...(manifest.run.allowlist
      ? [
          `allowlist: ${plural(c.allowlisted ?? 0, "record")} admitted by the allowlist (${plural(manifest.run.allowlist.entries, "entry", "entries")}, sha256=${manifest.run.allowlist.sha256})`,
        ]
      : []),
    `detection: none=${c.detection.none} flag=${c.detection.flag} block=${c.detection.block} not_checked=${c.detection.not_checked}`,
    `coverage: complete=${c.coverage.complete} partial=${c.coverage.partial} none=${c.coverage.none}`,
    `checks performed: ${manifest.run.checks_performed}`,
    ...cacheLine(manifest.run),
    `input sha256=${manifest.run.input_sha256 ?? "None"}`,
    ...(manifest.run.shard ? [shardLine(manifest.run.shard)] : []),
    `manifest: ${displayText(published.manifestPath)} sha256=${published.manifestSha256}`,
    published.exportPath !== null
      ? `export: ${displayText(published.exportPath)} sha256=${published.exportSha256} (${plural(c.admitted, "admitted record")})`
      : "export: not requested",
    `exit ${exitCode}: ${EXIT_EXPLANATIONS[exitCode]}`,
  ];
  for (const record of summary.held.slice(0, SUMMARY_HELD_LIMIT)) {
    const id = record.id_sha256 === null ? "id none" : `id_sha256=${record.id_sha256.slice(0, 16)}`;
    // An over-budget detail is built from numbers and flag names only, so it can be shown; a
    // malformed record's detail is not repeated here.
    const detail = record.hold_reasons[0] === "over_budget" && record.detail !== null ? ` (${record.detail.replace(/^record \d+: /, "")})` : "";
    lines.push(`held: record ${record.index} (line ${record.line}) ${id} ${record.hold_reasons.join(",")}${detail}`);
  }
  if (c.held > SUMMARY_HELD_LIMIT) {
    const more = c.held - SUMMARY_HELD_LIMIT;
    lines.push(`held: … and ${plural(more, "more held record")} (see the manifest's records)`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The warnings a finished run earns, one line each, none when all went well: repeated ids, and
 * the canary backend failing (the breaker opening; else a line for checks that found it
 * unreachable or too slow, and one for replies that came but could not be used).
 */
export function ingestRunWarnings(run: Pick<IngestRunReport, "summary" | "circuitOpen">, target: CanaryTarget, uniqueIds: boolean): string[] {
  const warnings: string[] = [];
  const { duplicateIds, canary, head } = run.summary;
  if (duplicateIds.count > 0 && duplicateIds.first !== null) {
    const first = duplicateIds.first;
    const count = duplicateIds.count;
    // The count is counts.duplicate_ids (run-summary.ts), so it says that definition: a malformed
    // record's id counts too, though --unique-ids holds only a repeat of a valid record's id.
    const repeat = `${count} ${count === 1 ? "record repeats" : "records repeat"} an earlier record's id, malformed records included (first: record ${first.index} repeats record ${first.firstIndex}); counted in counts.duplicate_ids`;
    warnings.push(
      uniqueIds
        ? `warning: ${repeat}; held as malformed (--unique-ids) when the earlier record is valid\n`
        : `warning: ${repeat}; a valid one is checked and admitted like any other; pass --unique-ids to hold them\n`,
    );
  }
  const reserved = run.summary.reservedLabels;
  if (reserved.count > 0 && reserved.first !== null) {
    warnings.push(
      `warning: ${plural(reserved.count, "admitted record")} ${reserved.count === 1 ? "has" : "have"} an id starting "${GENERATED_ID_PREFIX}" or a metadata key "${PROVENANCE_KEY}" or starting "${PROVENANCE_PREFIX}" (first: record ${reserved.first}), which the RAG loaders reserve: they refuse to load this pair, though verify passes it; rename those ids or keys before ingest (docs/rag.md)\n`,
    );
  }
  const server = head.pipeline.canary_server;
  if (server !== undefined) {
    const counted =
      server.prompt_count === "tokenize"
        ? "each prompt counted exactly by POST /tokenize"
        : "no POST /tokenize, so prompts are held to the conservative bound: a segment passes only if it fits at one token per byte, others are degraded (context_unverified), and the manifest records canary_context_verified false";
    warnings.push(`note: canary server ${target.url} serves ${server.served_model} with max_model_len ${server.max_model_len}; ${counted}\n`);
  }
  const total = head.run.records_total;
  if (run.circuitOpen !== null) {
    // The records whose own check failed (those that opened the breaker among them) are not screened either.
    const failedHeld = [canary.outage, canary.failed].filter((held) => held !== null);
    const failedRecords = failedHeld.reduce((sum, held) => sum + held.records, 0);
    const failed =
      failedRecords === 0 ? null : `${plural(failedRecords, "record")} whose check failed (${reasonList(failedHeld.flatMap((held) => held.reasons))})`;
    warnings.push(
      circuitOpenWarning(target, run.circuitOpen, canary.circuitNotSent === 0 ? null : `${plural(canary.circuitNotSent, "record")} of ${total}`, failed),
    );
    return warnings;
  }
  // How many records each kind of failure held, and for which reasons.
  const affected = (held: { readonly records: number; readonly reasons: ReasonCounts }) => ({
    count: held.records,
    words: `${plural(held.records, "record")} of ${total}${reasonBreakdown(held.reasons)}`,
    mixed: held.reasons.length > 1,
  });
  if (canary.outage !== null) warnings.push(canaryOutageWarning(target, canary.outage.reason, affected(canary.outage)));
  // A server answered, but its reply could not be used (another service at that URL, an empty or
  // cut-off reply): a line of its own, also beside an outage's, so neither kind goes unsaid.
  if (canary.failed !== null) warnings.push(canaryReplyWarning(target, canary.failed.reason, affected(canary.failed)));
  return warnings;
}

/** `--json`: the published manifest's bytes (checked against its digest as they go) and a newline. */
export async function printPublishedManifest(published: PublishResult, io: CliIo): Promise<void> {
  await copyPublishedFile(published.manifestPath, published.manifestSha256, (chunk) => writeOut(io.stdout, chunk));
  await writeOut(io.stdout, "\n");
}
